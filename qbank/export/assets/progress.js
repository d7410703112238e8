// Progress and its review schedule, shared by the index (search.js) and question pages
// (question.js): window.QBANK_PROGRESS. Kept in localStorage "qbank-progress" as
//   {id: {mark: "seen"|"got-it"|"review", due: epoch ms or null, interval: days, last: epoch ms}}
// `last` is when the question was last graded (Got it or Again; 0 if only seen): a progress file's
// entry replaces this browser's when its `last` is later.
// An older site kept a bare mark string per id; `load` reads that too, so no mark is lost.
// The clock is always Date.now(), so a test can move it (Playwright's page.clock).
(function () {
  "use strict";
  var KEY = "qbank-progress";
  var FORMAT = "qbank-progress";
  var VERSION = 1;
  var DAY = 86400000;
  var MARKS = { seen: true, "got-it": true, review: true };
  // "Got it" moves a question one step up this ladder (about x2.2 a step), up to 180 days.
  var LADDER = [1, 3, 7, 16, 35, 77, 169, 180];
  var MAX_INTERVAL = 180;
  // An id's shape (qbank.model.vocabulary.ID_PATTERN): a key such as "__proto__" never gets in.
  var ID = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/;
  var ENTRY_KEYS = ["mark", "due", "interval", "last"];

  function now() {
    return Date.now();
  }

  // Local midnight `days` days after today: a question due "in 3 days" is due all that day.
  function dayStart(time, days) {
    var date = new Date(time);
    date.setHours(0, 0, 0, 0);
    date.setDate(date.getDate() + days);
    return date.getTime();
  }

  // One stored entry as the current format, or null when it cannot be read as one.
  function normalize(value) {
    if (typeof value === "string") {
      if (!Object.prototype.hasOwnProperty.call(MARKS, value)) return null;
      // The old format had no schedule: "review again" is due now, the others wait for a grade.
      return { mark: value, due: value === "review" ? 0 : null, interval: value === "review" ? 1 : 0, last: 0 };
    }
    return problem(value) === null ? value : null;
  }

  // What is wrong with an entry of the current format, or null when nothing is.
  function problem(entry) {
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) return "not an object";
    var keys = Object.keys(entry);
    for (var i = 0; i < keys.length; i++) {
      if (ENTRY_KEYS.indexOf(keys[i]) < 0) return "an unknown field " + JSON.stringify(keys[i]);
    }
    if (!Object.prototype.hasOwnProperty.call(MARKS, entry.mark)) return "mark is not seen, got-it or review";
    if (entry.due !== null && !isTime(entry.due)) return "due is not a time";
    if (!Number.isInteger(entry.interval) || entry.interval < 0 || entry.interval > MAX_INTERVAL) {
      return "interval is not 0 to " + MAX_INTERVAL + " days";
    }
    if (!isTime(entry.last)) return "last is not a time";
    return null;
  }

  function isTime(value) {
    return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 8.64e15;
  }

  function load() {
    var raw;
    try {
      raw = JSON.parse(localStorage.getItem(KEY) || "{}");
    } catch (e) {
      return {};
    }
    var entries = {};
    if (!raw || typeof raw !== "object") return entries;
    Object.keys(raw).forEach(function (id) {
      var entry = ID.test(id) ? normalize(raw[id]) : null;
      if (entry) entries[id] = entry;
    });
    return entries;
  }

  // False when the browser would not keep it (a private window, a full quota).
  function save(entries) {
    try {
      localStorage.setItem(KEY, JSON.stringify(entries));
      return true;
    } catch (e) {
      return false;
    }
  }

  function nextInterval(interval) {
    for (var i = 0; i < LADDER.length; i++) {
      if (LADDER[i] > interval) return LADDER[i];
    }
    return MAX_INTERVAL;
  }

  // The entry after a grade, from the entry as it was before it (null for a question not opened).
  function grade(before, mark) {
    var time = now();
    if (mark === "review") return { mark: mark, due: time, interval: 1, last: time };
    if (mark === "got-it") {
      var interval = nextInterval(before ? before.interval : 0);
      return { mark: mark, due: dayStart(time, interval), interval: interval, last: time };
    }
    // Opening a question is not a grade: `last` 0, so any graded entry from a progress file wins.
    return { mark: "seen", due: null, interval: 0, last: 0 };
  }

  function isDue(entry, time) {
    return !!entry && entry.due !== null && entry.due <= time;
  }

  // --- a progress file: export and a strict, merging import ---------------------------------------

  function exported(entries) {
    return { format: FORMAT, version: VERSION, exported: new Date(now()).toISOString(), progress: entries };
  }

  // The file's entries, or a message saying why it is refused. Nothing in it is ever run: it is
  // parsed as JSON and each value checked against the format.
  function parse(text) {
    var data;
    try {
      data = JSON.parse(text);
    } catch (e) {
      return { error: "This file is not JSON." };
    }
    if (!data || typeof data !== "object" || data.format !== FORMAT) {
      return { error: "This file is not a qbank progress file." };
    }
    if (data.version !== VERSION) return { error: "This progress file's version is not " + VERSION + "." };
    var progress = data.progress;
    if (!progress || typeof progress !== "object" || Array.isArray(progress)) {
      return { error: "This progress file has no progress." };
    }
    var entries = {};
    var ids = Object.keys(progress);
    for (var i = 0; i < ids.length; i++) {
      if (!ID.test(ids[i])) return { error: "Refused: " + JSON.stringify(ids[i].slice(0, 80)) + " is not a question id." };
      var wrong = problem(progress[ids[i]]);
      if (wrong) return { error: "Refused: " + ids[i] + ": " + wrong + "." };
      entries[ids[i]] = progress[ids[i]];
    }
    return { entries: entries };
  }

  // `mine` with each of `theirs` that is newer (a later `last`) or that `mine` lacks. Returns the
  // number of entries taken.
  function merge(mine, theirs) {
    var taken = 0;
    Object.keys(theirs).forEach(function (id) {
      if (!mine[id] || theirs[id].last > mine[id].last) {
        mine[id] = theirs[id];
        taken += 1;
      }
    });
    return taken;
  }

  window.QBANK_PROGRESS = {
    DAY: DAY,
    now: now,
    load: load,
    save: save,
    grade: grade,
    isDue: isDue,
    exported: exported,
    parse: parse,
    merge: merge,
  };
})();

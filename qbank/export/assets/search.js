// The index page: instant ranked search, filters with live counts, the review queue and the
// progress file, over window.QBANK (assets/index.js) and window.QBANK_PROGRESS (progress.js).
// Data comes in a script file, not fetch(), because fetch is blocked on file:// pages
// (research/ecosystem.md §6.3). Text reaches the page only through textContent and DOM methods,
// never innerHTML.
(function () {
  "use strict";
  var progress = window.QBANK_PROGRESS;
  var LIST = "qbank-list"; // the list as filtered, for a question page's ←/→ (assets/question.js)
  var LIMIT = 200; // rows rendered at a time: more only slows typing down; "Show more" pages on
  var COLUMN = { track: 2, level: 3, zone: 4, area: 5, topic: 6, provenance: 8 };
  var LABEL = { seen: "seen", "got-it": "got it", review: "review again" };
  var NARROW = "(max-width: 40rem)"; // a phone: the filters start folded away
  var MAX_FILE = 5000000; // bytes: a progress file of the largest bank is far smaller
  var rows = window.QBANK.questions;
  var query = document.getElementById("q");
  var results = document.getElementById("results");
  var count = document.getElementById("count");
  var filters = document.getElementById("filters");
  var reviewDue = document.getElementById("review-due");
  var importStatus = document.getElementById("import-status");
  var selects = Array.prototype.slice.call(document.querySelectorAll("select[data-facet]"));
  var shown = LIMIT; // rows shown now: back to LIMIT whenever the query or a filter changes
  var more = document.createElement("button");
  more.type = "button";
  more.id = "more";
  more.hidden = true;
  results.insertAdjacentElement("afterend", more);

  // --- matching and ranking ------------------------------------------------------------------

  var lowered = new WeakMap(); // row -> its title and body in lower case, made once per row
  function texts(row) {
    var text = lowered.get(row);
    if (!text) {
      text = { title: String(row[1]).toLowerCase(), body: String(row[7] || "").toLowerCase() };
      lowered.set(row, text);
    }
    return text;
  }

  // A word of the query as a whole word: not inside a longer run of letters, digits or "_".
  function wholeWord(word) {
    var escaped = word.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&"); // only these may be escaped in a "u" regex
    return new RegExp("(?<![\\p{L}\\p{N}_])" + escaped + "(?![\\p{L}\\p{N}_])", "u");
  }

  // 0: `word` is not in `text`; 1: only inside a longer word; 2: as a whole word (`whole`).
  function found(text, word, whole) {
    if (text.indexOf(word) < 0) return 0;
    return whole.test(text) ? 2 : 1;
  }

  var TITLE_WEIGHT = [0, 20, 30]; // by `found`: a title match outweighs any body match
  var BODY_WEIGHT = [0, 1, 3];
  var WHOLE = 100; // a word found whole anywhere ranks above every partial match of it

  // The row's relevance to `words`, or -1 when a word is missing (every word must match).
  function score(row, words, wholes) {
    var text = texts(row);
    var total = 0;
    for (var i = 0; i < words.length; i++) {
      var inTitle = found(text.title, words[i], wholes[i]);
      var inBody = found(text.body, words[i], wholes[i]);
      if (!inTitle && !inBody) return -1;
      total += (inTitle === 2 || inBody === 2 ? WHOLE : 0) + TITLE_WEIGHT[inTitle] + BODY_WEIGHT[inBody];
    }
    var phrase = words.join(" ");
    if (words.length > 1 && text.title.indexOf(phrase) >= 0) total += WHOLE; // the words as written
    return total;
  }

  // --- facets: what a row is under each filter ------------------------------------------------

  // A row's value under `facet`: a column, or for progress its mark ("unseen" without one). "due"
  // is a progress value too, beside the mark, for a question whose review date has come.
  function valueOf(facet, row, marks) {
    if (facet !== "progress") return row[COLUMN[facet]];
    var entry = marks[row[0]];
    return entry ? entry.mark : "unseen";
  }

  function has(facet, row, value, marks, time) {
    if (facet === "progress" && value === "due") return progress.isDue(marks[row[0]], time);
    return valueOf(facet, row, marks) === value;
  }

  function countRow(counts, facet, row, marks, time) {
    var value = valueOf(facet, row, marks);
    counts[facet][value] = (counts[facet][value] || 0) + 1;
    if (facet === "progress" && progress.isDue(marks[row[0]], time)) counts.progress.due = (counts.progress.due || 0) + 1;
  }

  function chosenFilters() {
    var chosen = {};
    selects.forEach(function (select) {
      if (select.value) chosen[select.dataset.facet] = select.value;
    });
    return chosen;
  }

  // One pass over the bank: the rows the query and filters select, ranked, and for each filter the
  // count of each value among the rows the query and every *other* filter select.
  function search() {
    var words = query.value.toLowerCase().split(/\s+/).filter(Boolean);
    var wholes = words.map(wholeWord);
    var chosen = chosenFilters();
    var facets = Object.keys(chosen);
    var marks = progress.load();
    var time = progress.now();
    var counts = {};
    var all = selects.map(function (select) { return select.dataset.facet; });
    all.forEach(function (facet) {
      counts[facet] = {};
    });
    var hits = [];
    rows.forEach(function (row, index) {
      var relevance = words.length ? score(row, words, wholes) : 0;
      if (relevance < 0) return;
      var failed = null;
      for (var i = 0; i < facets.length; i++) {
        if (has(facets[i], row, chosen[facets[i]], marks, time)) continue;
        if (failed) return; // fails two filters: counted under neither
        failed = facets[i];
      }
      if (failed) {
        countRow(counts, failed, row, marks, time); // fails one: still counts under that filter
        return;
      }
      for (var j = 0; j < all.length; j++) countRow(counts, all[j], row, marks, time);
      hits.push({ row: row, index: index, score: relevance });
    });
    hits.sort(order(chosen.progress === "due", marks));
    return {
      hits: hits.map(function (hit) { return hit.row; }),
      words: words,
      chosen: chosen,
      marks: marks,
      counts: counts,
    };
  }

  // The due list by due date, else by relevance; ties keep the bank's order.
  function order(byDue, marks) {
    return function (a, b) {
      var first = byDue ? marks[a.row[0]].due - marks[b.row[0]].due : b.score - a.score;
      return first || a.index - b.index;
    };
  }

  // --- the page: results with highlighted words, filter counts ----------------------------------

  // `text` with each occurrence of `words` in a <mark>, built from text nodes only.
  function highlighted(text, words) {
    var fragment = document.createDocumentFragment();
    var lower = text.toLowerCase();
    var spans = [];
    if (lower.length === text.length) { // else positions in `lower` would not be positions in `text`
      words.forEach(function (word) {
        for (var at = lower.indexOf(word); at >= 0; at = lower.indexOf(word, at + 1)) {
          spans.push([at, at + word.length]);
        }
      });
    }
    spans.sort(function (a, b) { return a[0] - b[0]; });
    var done = 0;
    spans.forEach(function (span) {
      if (span[1] <= done) return;
      var start = Math.max(span[0], done);
      if (start > done) fragment.appendChild(document.createTextNode(text.slice(done, start)));
      var mark = document.createElement("mark");
      mark.textContent = text.slice(start, span[1]);
      fragment.appendChild(mark);
      done = span[1];
    });
    if (done < text.length) fragment.appendChild(document.createTextNode(text.slice(done)));
    return fragment;
  }

  // A short stretch of the scenario or question around the first word found there, or "".
  function snippet(row, words) {
    var body = String(row[7] || "");
    var lower = texts(row).body;
    var at = -1;
    words.forEach(function (word) {
      var here = lower.indexOf(word);
      if (here >= 0 && (at < 0 || here < at)) at = here;
    });
    if (at < 0) return "";
    var space = body.indexOf(" ", Math.max(0, at - 40)); // start at a word, at most 40 before
    var start = at <= 40 ? 0 : space >= 0 && space < at ? space + 1 : at - 40;
    var end = Math.min(body.length, at + 120);
    if (end < body.length) end = Math.max(body.lastIndexOf(" ", end), at + 1);
    return (start > 0 ? "…" : "") + body.slice(start, end).trim() + (end < body.length ? "…" : "");
  }

  function badge(text, className) {
    var span = document.createElement("span");
    span.className = "badge " + className;
    span.textContent = text;
    return span;
  }

  function item(row, words, entry, time) {
    var li = document.createElement("li");
    var link = document.createElement("a");
    link.href = "q/" + encodeURIComponent(row[0]) + ".html";
    link.appendChild(highlighted(String(row[1]), words));
    var meta = document.createElement("span");
    meta.className = "meta";
    meta.textContent = [row[2], row[3], row[4], row[6]].join(" · ");
    li.appendChild(link);
    li.appendChild(meta);
    if (entry) li.appendChild(badge(LABEL[entry.mark], "mark-" + entry.mark));
    if (progress.isDue(entry, time)) li.appendChild(badge("due", "due"));
    var excerpt = words.length ? snippet(row, words) : "";
    if (excerpt) {
      var context = document.createElement("span");
      context.className = "snippet";
      context.appendChild(highlighted(excerpt, words));
      li.appendChild(context);
    }
    return li;
  }

  // Each option's label without its count, read once: "L3 (12)" -> "L3".
  var labels = new Map();
  selects.forEach(function (select) {
    Array.prototype.forEach.call(select.options, function (option) {
      if (option.value) labels.set(option, option.textContent.replace(/ \(\d+\)$/, ""));
    });
  });

  // "L3 (12)": 12 rows would be listed with L3 chosen, given the query and the other filters.
  // An option with none stays selectable, as "(0)".
  function showCounts(counts) {
    selects.forEach(function (select) {
      var facet = counts[select.dataset.facet];
      Array.prototype.forEach.call(select.options, function (option) {
        if (!option.value) return;
        var text = labels.get(option) + " (" + (facet[option.value] || 0) + ")";
        if (option.textContent !== text) option.textContent = text;
      });
    });
    reviewDue.textContent = "Review due (" + (counts.progress.due || 0) + ")";
  }

  function showFilterCount(chosen) {
    var on = Object.keys(chosen).length;
    filters.querySelector("summary .on").textContent = on ? " (" + on + " on)" : "";
  }

  function update() {
    var now = search();
    var hits = now.hits;
    var time = progress.now();
    var list = document.createDocumentFragment();
    hits.slice(0, shown).forEach(function (row) {
      list.appendChild(item(row, now.words, now.marks[row[0]], time));
    });
    results.replaceChildren(list);
    var noun = hits.length === 1 ? " question" : " questions";
    var left = hits.length - shown;
    count.textContent = hits.length + noun + (left > 0 ? ", the first " + shown + " shown" : "");
    more.hidden = left <= 0;
    more.textContent = "Show " + Math.min(left, LIMIT) + " more (" + left + " not shown)";
    showCounts(now.counts);
    showFilterCount(now.chosen);
    saveHash(now.words.length ? query.value : "", now.chosen);
    try {
      sessionStorage.setItem(LIST, JSON.stringify({ hash: location.hash, ids: hits.map(function (r) { return r[0]; }) }));
    } catch (e) {
      // no session storage (a private window, a full quota): pages keep the bank's order
    }
    return now;
  }

  function saveHash(text, chosen) {
    var params = new URLSearchParams();
    if (text) params.set("q", text);
    Object.keys(chosen).forEach(function (facet) {
      params.set(facet, chosen[facet]);
    });
    var hash = params.toString();
    if (location.hash.slice(1) !== hash) history.replaceState(null, "", hash ? "#" + hash : location.pathname);
  }

  function loadHash() {
    var params = new URLSearchParams(location.hash.slice(1));
    query.value = params.get("q") || "";
    selects.forEach(function (select) {
      var wanted = params.get(select.dataset.facet) || "";
      var known = Array.prototype.some.call(select.options, function (o) {
        return o.value === wanted;
      });
      select.value = known ? wanted : "";
    });
  }

  function fresh() {
    shown = LIMIT;
    return update();
  }

  function open(row) {
    location.href = "q/" + encodeURIComponent(row[0]) + ".html";
  }

  // A question of the list as filtered that this browser has not shown yet, picked at random.
  document.getElementById("random").addEventListener("click", function () {
    var now = search();
    var unseen = now.hits.filter(function (row) {
      return !now.marks[row[0]];
    });
    if (!unseen.length) {
      count.textContent = "Every question of this list has been seen.";
      return;
    }
    open(unseen[Math.floor(Math.random() * unseen.length)]);
  });

  // The due list (with the query and the other filters), earliest first: its first question opens
  // and ←/→ on the question pages follow it.
  reviewDue.addEventListener("click", function () {
    document.getElementById("f-progress").value = "due";
    var now = fresh();
    if (now.hits.length) open(now.hits[0]);
    else count.textContent = "Nothing in this list is due for review.";
  });

  // --- the progress file ------------------------------------------------------------------------

  document.getElementById("export").addEventListener("click", function () {
    var text = JSON.stringify(progress.exported(progress.load()), null, 1);
    var link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    link.download = "qbank-progress.json";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(link.href); }, 0);
  });

  var known = new Set(rows.map(function (row) { return row[0]; }));
  document.getElementById("import").addEventListener("change", function (event) {
    var input = event.target;
    var file = input.files && input.files[0];
    if (!file) return;
    if (file.size > MAX_FILE) {
      importStatus.textContent = "Refused: the file is larger than a progress file can be.";
      input.value = "";
      return;
    }
    file.text().then(function (text) {
      input.value = ""; // the same file may be chosen again
      var read = progress.parse(text);
      if (read.error) {
        importStatus.textContent = read.error;
        return;
      }
      var mine = progress.load();
      var taken = progress.merge(mine, read.entries);
      if (!progress.save(mine)) {
        importStatus.textContent = "Progress cannot be saved in this browser.";
        return;
      }
      var ids = Object.keys(read.entries);
      var elsewhere = ids.filter(function (id) { return !known.has(id); }).length;
      importStatus.textContent =
        "Loaded " + ids.length + " questions' progress: " + taken + " newer than this browser's" +
        (elsewhere ? ", " + elsewhere + " not in this bank (kept for a bank that has them)" : "") + ".";
      update();
    });
  });

  // --- events -----------------------------------------------------------------------------------

  more.addEventListener("click", function () {
    var first = results.children.length; // the first new row gets the focus, for keyboards
    shown += LIMIT;
    update();
    var link = results.children[first] && results.children[first].querySelector("a");
    if (link) link.focus();
  });
  query.addEventListener("input", fresh);
  selects.forEach(function (select) {
    select.addEventListener("change", fresh);
  });
  document.getElementById("search").addEventListener("submit", function (event) {
    event.preventDefault();
    var first = results.querySelector("a");
    if (first) first.focus();
  });
  document.getElementById("search").addEventListener("reset", function () {
    setTimeout(fresh, 0); // after the form has cleared its fields
  });
  document.addEventListener("keydown", function (event) {
    var typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName);
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      query.focus();
    }
  });
  window.addEventListener("hashchange", function () {
    loadHash();
    update();
  });
  window.addEventListener("pageshow", update); // back from a question page: show its new mark
  // On a phone the filters fold away, so the search box and the first results fit the screen.
  if (window.matchMedia(NARROW).matches) filters.open = false;
  loadHash();
  update();
})();

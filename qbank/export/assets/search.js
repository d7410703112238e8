// The index page: instant search and filters over window.QBANK (assets/index.js).
// Data comes in a script file, not fetch(), because fetch is blocked on file:// pages
// (research/ecosystem.md §6.3). Text reaches the page only through textContent, never innerHTML.
(function () {
  "use strict";
  var KEY = "qbank-progress";
  var LIST = "qbank-list"; // the list as filtered, for a question page's ←/→ (assets/question.js)
  var LIMIT = 200; // rows rendered at a time: more only slows typing down; "Show more" pages on
  var COLUMN = { track: 2, level: 3, zone: 4, area: 5, topic: 6, provenance: 8 };
  var LABEL = { seen: "seen", "got-it": "got it", review: "review again" };
  var rows = window.QBANK.questions;
  var query = document.getElementById("q");
  var results = document.getElementById("results");
  var count = document.getElementById("count");
  var selects = Array.prototype.slice.call(document.querySelectorAll("select[data-facet]"));
  var shown = LIMIT; // rows shown now: back to LIMIT whenever the query or a filter changes
  var more = document.createElement("button");
  more.type = "button";
  more.id = "more";
  more.hidden = true;
  results.insertAdjacentElement("afterend", more);

  function progress() {
    try {
      return JSON.parse(localStorage.getItem(KEY) || "{}") || {};
    } catch (e) {
      return {};
    }
  }

  function matches(row, words, chosen, marks) {
    for (var facet in chosen) {
      if (facet === "progress") {
        var mark = marks[row[0]] || "unseen";
        if (mark !== chosen.progress) return false;
      } else if (row[COLUMN[facet]] !== chosen[facet]) {
        return false;
      }
    }
    for (var i = 0; i < words.length; i++) {
      if (row[7].indexOf(words[i]) < 0) return false;
    }
    return true;
  }

  function item(row, mark) {
    var li = document.createElement("li");
    var link = document.createElement("a");
    link.href = "q/" + encodeURIComponent(row[0]) + ".html";
    link.textContent = row[1];
    var meta = document.createElement("span");
    meta.className = "meta";
    meta.textContent = [row[2], row[3], row[4], row[6]].join(" · ");
    li.appendChild(link);
    li.appendChild(meta);
    if (mark) {
      var badge = document.createElement("span");
      badge.className = "badge mark-" + mark;
      badge.textContent = LABEL[mark] || mark;
      li.appendChild(badge);
    }
    return li;
  }

  function state() {
    var chosen = {};
    selects.forEach(function (select) {
      if (select.value) chosen[select.dataset.facet] = select.value;
    });
    return chosen;
  }

  // The rows the query and filters select, with the words and filters they were chosen by.
  function found() {
    var words = query.value.toLowerCase().split(/\s+/).filter(Boolean);
    var chosen = state();
    var marks = progress();
    var hits = rows.filter(function (row) {
      return matches(row, words, chosen, marks);
    });
    return { hits: hits, words: words, chosen: chosen, marks: marks };
  }

  function update() {
    var now = found();
    var hits = now.hits;
    var marks = now.marks;
    var list = document.createDocumentFragment();
    hits.slice(0, shown).forEach(function (row) {
      list.appendChild(item(row, marks[row[0]]));
    });
    results.replaceChildren(list);
    var noun = hits.length === 1 ? " question" : " questions";
    var left = hits.length - shown;
    count.textContent = hits.length + noun + (left > 0 ? ", the first " + shown + " shown" : "");
    more.hidden = left <= 0;
    more.textContent = "Show " + Math.min(left, LIMIT) + " more (" + left + " not shown)";
    saveHash(now.words.length ? query.value : "", now.chosen);
    try {
      sessionStorage.setItem(LIST, JSON.stringify({ hash: location.hash, ids: hits.map(function (r) { return r[0]; }) }));
    } catch (e) {
      // no session storage (a private window, a full quota): pages keep the bank's order
    }
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
    update();
  }

  // A question of the list as filtered that this browser has not shown yet, picked at random.
  document.getElementById("random").addEventListener("click", function () {
    var now = found();
    var unseen = now.hits.filter(function (row) {
      return !now.marks[row[0]];
    });
    if (!unseen.length) {
      count.textContent = "Every question of this list has been seen.";
      return;
    }
    location.href = "q/" + encodeURIComponent(unseen[Math.floor(Math.random() * unseen.length)][0]) + ".html";
  });

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
  loadHash();
  update();
})();

// A question page: progress and its review schedule (assets/progress.js), keyboard shortcuts,
// and KaTeX for math.
(function () {
  "use strict";
  var progress = window.QBANK_PROGRESS;
  var LABEL = { seen: "Seen", "got-it": "Got it", review: "Review again" };
  var id = document.querySelector("article[data-id]").dataset.id;
  var buttons = Array.prototype.slice.call(document.querySelectorAll("button[data-mark]"));
  var status = document.getElementById("status");
  var badge = document.getElementById("mark");

  function show(mark) {
    buttons.forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.dataset.mark === mark));
    });
    badge.hidden = !mark;
    badge.className = "badge mark-" + mark;
    badge.textContent = LABEL[mark] || "";
  }

  function when(entry) {
    if (entry.due === null) return "";
    var days = Math.ceil((entry.due - progress.now()) / progress.DAY); // due at a midnight: calendar days
    if (days <= 0) return ", due for review now";
    return ", next review in " + days + (days === 1 ? " day" : " days");
  }

  // Each grade is worked out from the entry as this page found it, so pressing a button twice, or
  // one then the other, grades this visit once: the last press counts.
  var entries = progress.load();
  var before = entries[id] || null;
  if (!before) {
    entries[id] = progress.grade(null, "seen"); // opening a question marks it seen
    progress.save(entries);
  }

  function mark(value) {
    var now = progress.load(); // another tab may have changed other questions meanwhile
    now[id] = progress.grade(before, value);
    if (!progress.save(now)) {
      status.textContent = "Progress cannot be saved in this browser.";
      return;
    }
    show(value);
    status.textContent = "Marked: " + LABEL[value].toLowerCase() + when(now[id]);
  }

  show(entries[id].mark);
  buttons.forEach(function (button) {
    button.addEventListener("click", function () {
      mark(button.dataset.mark);
    });
  });

  function toggle(detailsId) {
    var details = document.getElementById(detailsId);
    if (!details) return;
    details.open = !details.open;
    details.querySelector("summary").focus();
  }

  // ←/→ follow the list the index showed last (its query and filters), where this question is in
  // it; else the bank's order the page was built with.
  function followList() {
    var list;
    try {
      list = JSON.parse(sessionStorage.getItem("qbank-list") || "null");
    } catch (e) {
      return;
    }
    var at = list && Array.isArray(list.ids) ? list.ids.indexOf(id) : -1;
    if (at < 0) return;
    var pager = document.querySelector("nav.pager");
    [["prev", at - 1, "← Previous"], ["next", at + 1, "Next →"]].forEach(function (step) {
      var link = document.getElementById(step[0]);
      var target = list.ids[step[1]];
      if (!target) {
        if (link) link.replaceWith(document.createElement("span"));
        return;
      }
      if (!link) {
        link = document.createElement("a");
        link.id = step[0];
        link.rel = step[0];
        link.textContent = step[2];
        pager.children[step[0] === "prev" ? 0 : 2].replaceWith(link);
      }
      link.href = encodeURIComponent(target) + ".html";
    });
    var back = pager.children[1];
    if (typeof list.hash === "string" && list.hash) back.href = "../index.html" + list.hash;
  }
  followList();

  function go(rel) {
    var link = document.getElementById(rel);
    if (link) location.href = link.href;
  }

  var KEYS = {
    a: function () { toggle("answer"); },
    m: function () { toggle("mistake"); },
    n: function () { toggle("napkin"); },
    g: function () { mark("got-it"); },
    r: function () { mark("review"); },
    ArrowLeft: function () { go("prev"); },
    ArrowRight: function () { go("next"); },
    "/": function () { location.href = "../index.html"; },
  };
  document.addEventListener("keydown", function (event) {
    var action = KEYS[event.key];
    var typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName);
    if (!action || typing || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
    event.preventDefault();
    action();
  });

  if (window.katex) {
    Array.prototype.forEach.call(document.querySelectorAll(".math"), function (element) {
      window.katex.render(element.textContent, element, {
        displayMode: element.dataset.display === "true",
        throwOnError: false, // a formula KaTeX cannot parse shows as red source text, not a broken page
      });
    });
  }
})();

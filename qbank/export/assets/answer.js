// The answer check on a question page: a typed value graded as the audit reads numbers, before the
// reveal. A port of qbank/napkin/answer.py in exact rationals (BigInt), with the grammar and the unit
// table that assets/units.js carries (compiled from qbank/napkin/units.py at build time); the
// browser tests hold the two to the same verdicts, input by input. Text goes in with textContent.
(function () {
  "use strict";
  var U = window.QBANK_UNITS;
  var GRAMMAR = new RegExp("^(?:" + U.grammar + ")$");

  // --- exact rationals: {n, d} with d > 0, in lowest terms ---
  function abs(x) { return x < 0n ? -x : x; }
  function gcd(a, b) {
    a = abs(a); b = abs(b);
    while (b) { var t = a % b; a = b; b = t; }
    return a;
  }
  function q(n, d) {
    if (d < 0n) { n = -n; d = -d; }
    var g = gcd(n, d) || 1n;
    return { n: n / g, d: d / g };
  }
  function parse(text) {
    var parts = text.split("/");
    return q(BigInt(parts[0]), BigInt(parts[1] || "1"));
  }
  function mul(a, b) { return q(a.n * b.n, a.d * b.d); }
  function div(a, b) { return q(a.n * b.d, a.d * b.n); }
  function cmp(a, b) {
    var l = a.n * b.d, r = b.n * a.d;
    return l < r ? -1 : l > r ? 1 : 0;
  }
  function pow10(k) {
    return k >= 0 ? q(10n ** BigInt(k), 1n) : q(1n, 10n ** BigInt(-k));
  }
  // Python's floor division and remainder (BigInt's / truncates toward zero).
  function divmod(a, b) {
    var k = a / b, r = a % b;
    if (r !== 0n && (r < 0n) !== (b < 0n)) { k -= 1n; r += b; }
    return [k, r];
  }

  // --- the audit's `=` tolerance: equations._within(exact, stated, quantum, approx=False) ---
  function roundedOrTruncated(exact, stated, quantum) {
    var kOff = divmod(stated.n * quantum.d, stated.d * quantum.n);
    if (kOff[1] !== 0n) return false;
    var k = kOff[0];
    var num = exact.n * quantum.d, den = exact.d * quantum.n;
    if (den < 0n) { num = -num; den = -den; }
    var br = divmod(num, den), below = br[0], rest = br[1];
    var truncated = below < 0n && rest ? below + 1n : below;
    if (2n * rest === den) return k === below || k === below + 1n;
    return k === truncated || k === below + (2n * rest > den ? 1n : 0n);
  }
  function near(exact, stated, quantum) {
    // EQUAL_SHARE = 5/100
    if (100n * quantum.n * exact.d <= 5n * abs(exact.n) * quantum.d) return true;
    if (stated.n === 0n) return true;
    var gap = q(abs(exact.n * stated.d - stated.n * exact.d), exact.d * stated.d);
    return cmp(gap, q(5n * abs(exact.n), 100n * exact.d)) <= 0;
  }
  function agrees(exact, typed) {
    if (typed.quantum.n === 0n || typed.value.n === 0n) return cmp(typed.value, exact) === 0;
    return roundedOrTruncated(exact, typed.value, typed.quantum) && near(exact, typed.value, typed.quantum);
  }

  // --- reading: the grammar, then the table, in each mode ---
  function addDims(a, b, sign) {
    return a.map(function (x, i) { return x + sign * b[i]; });
  }
  function literal(raw) {
    var digits = raw.replace(/,/g, "");
    var e = digits.toLowerCase().split("e");
    var mantissa = e[0].split(".");
    var decimals = mantissa[1] || "";
    var power = parseInt(e[1] || "0", 10) - decimals.length;
    var value = q(BigInt((mantissa[0] + decimals) || "0"), 1n);
    return { value: mul(value, pow10(power)), quantum: pow10(power) };
  }
  var none = U.base.map(function () { return 0; });

  function read(text, modes) {
    var accepts = "Type " + U.accepts + ".";
    var m = GRAMMAR.exec(text);
    if (!m) return "Cannot read that. " + accepts;
    if (text.length > U.max_input) return "That is too long to be an answer. " + accepts;
    var unit = m[6] || "";
    var words = unit === "%" ? [] : unit.split("/");
    for (var w = 0; w < words.length; w++) {
      if (words[w] && !Object.prototype.hasOwnProperty.call(U.words, words[w])) {
        return 'Unknown unit "' + words[w] + '". ' + accepts;
      }
    }
    var readings = [];
    modes.forEach(function (mode) {
      var i = U.modes.findIndex(function (x) {
        return x.b_billions === mode.b_billions && x.binary_kb === mode.binary_kb;
      });
      var number = literal(m[3]);
      var scale = q(1n, 1n), dims = none.slice();
      function times(entry, sign) {
        var s = parse(entry[0]);
        scale = sign > 0 ? mul(scale, s) : div(scale, s);
        dims = addDims(dims, entry[1], sign);
      }
      if (m[4]) times(U.letters[m[4]][i], 1);
      if (m[5]) scale = mul(scale, pow10(parseInt(m[5], 10)));
      if (m[2]) dims = addDims(dims, U.usd, 1);
      if (unit === "%") scale = mul(scale, parse(U.percent));
      else if (unit) {
        var slash = unit.indexOf("/");
        if (slash !== 0) times(U.words[slash < 0 ? unit : unit.slice(0, slash)][i], 1);
        if (slash >= 0) times(U.words[unit.slice(slash + 1)][i], -1);
      }
      var quantum = mul(number.quantum, scale);
      readings.push({
        value: mul(number.value, scale),
        quantum: q(abs(quantum.n), quantum.d),
        dims: dims,
      });
    });
    return readings;
  }

  function describe(dims) {
    var top = [], bottom = [];
    U.base.forEach(function (name, i) {
      var p = dims[i];
      if (p > 0) top.push(p === 1 ? name : name + "^" + p);
      if (p < 0) bottom.push(p === -1 ? name : name + "^" + -p);
    });
    return (top.join("·") || "1") + (bottom.length ? "/" + bottom.join("/") : "");
  }
  function same(a, b) { return a.every(function (x, i) { return x === b[i]; }); }
  function kind(dims) {
    for (var i = 0; i < U.kinds.length; i++) if (same(U.kinds[i][0], dims)) return U.kinds[i][1];
    return "a quantity in " + describe(dims);
  }

  // grade(text, answer) -> {status, message}: as qbank.napkin.answer.grade.
  function grade(text, answer) {
    var readings = read(text, answer.modes);
    if (typeof readings === "string") return { status: "unreadable", message: readings };
    var matching = [];
    answer.modes.forEach(function (mode, i) {
      if (same(readings[i].dims, mode.dims)) matching.push([parse(mode.value), readings[i]]);
    });
    if (matching.some(function (p) { return agrees(p[0], p[1]); })) {
      return { status: "right", message: "Right: the worked answer says " + answer.text + "." };
    }
    if (matching.length) {
      var side = cmp(matching[0][1].value, matching[0][0]) > 0 ? "high" : "low";
      return {
        status: "wrong",
        message: "Not right: too " + side + ", past the tolerance. Try again, or show the answer.",
      };
    }
    return {
      status: "wrong-unit",
      message: "That is " + kind(readings[0].dims) + "; the answer is " + kind(answer.modes[0].dims) + ".",
    };
  }
  window.qbankGrade = grade; // the browser tests compare it with the Python grader

  var box = document.getElementById("check");
  if (!box) return;
  var answer = JSON.parse(box.dataset.answer);
  var input = document.getElementById("typed");
  var verdict = document.getElementById("verdict");
  var reveal = document.getElementById("reveal");

  function check() {
    var result = grade(input.value, answer);
    verdict.textContent = result.message;
    verdict.className = "verdict " + result.status;
    reveal.hidden = result.status === "unreadable";
  }
  document.getElementById("check-answer").addEventListener("click", check);
  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter") check();
  });
  reveal.addEventListener("click", function () {
    var details = document.getElementById("answer");
    details.open = true;
    details.querySelector("summary").focus();
  });
})();

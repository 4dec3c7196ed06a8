"""The style sheet and the script of the HTML report, inlined in every page.

The script reads the page's data (``<script type="application/json" id="xdt-data">``, see
:func:`xdt.report.build_report`) and makes the table of rows sortable (a click on a
header), filterable (the text box) and selectable (a click, or Enter, on a row): the
selected row's path, AXp and CXps are then highlighted in the tree (the classes of
:func:`xdt.report._svg.highlights`, set the same way) and its explanations shown beside it.
The filter matches the words typed against each row's cells and its values (those the
page carries); a word ``NAME=VALUE`` matches the rows whose column or feature ``NAME`` is
``VALUE`` exactly (``prediction=9``, ``age=35``). Text sorts with its numbers compared as
numbers. It writes text with ``textContent`` only, never markup, and loads nothing.
"""

from __future__ import annotations

from string import Template

from xdt.report._svg import CSS as TREE_CSS
from xdt.report._svg import FONT

PAGE_CSS = Template("""
:root { --ink: #1f2330; --muted: #5d6475; --line: #d9dce3; --soft: #f6f7f9;
        --path: #c2185b; --axp: #e08a00; --cxp: #6a3d9a; --ok: #2e7d32; --bad: #c62828; }
* { box-sizing: border-box; }
body { margin: 0; padding: 18px 24px 40px; color: var(--ink); background: #fff;
       font-family: $font; font-size: 14px; line-height: 1.45; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 0 0 8px; }
h3 { font-size: 14px; margin: 10px 0 4px; }
p { margin: 4px 0; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
              font-size: 12.5px; }
.meta { color: var(--muted); font-size: 12.5px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr));
         gap: 14px; margin: 14px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px;
        background: #fff; min-width: 0; }
.card table.kv td { padding: 1px 10px 1px 0; vertical-align: top; }
.card table.kv td:first-child { color: var(--muted); min-width: 4em; }
.card table.kv td:last-child { overflow-wrap: anywhere; }
.note { background: #fff8e1; border: 1px solid #f3d98b; border-radius: 6px;
        padding: 6px 10px; margin: 6px 0; }
.features { max-height: 190px; overflow: auto; margin: 4px 0 0; padding-left: 18px; }
.features li { overflow-wrap: anywhere; }
.swatch { display: inline-block; padding: 0 7px; margin: 0 4px 2px 0; border-radius: 4px;
          border: 1px solid; }
.explore { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-start; }
.explore > .left { flex: 1 1 480px; min-width: 0; }
.explore > .right { flex: 1 1 560px; min-width: 0; }
.tree-box { border: 1px solid var(--line); border-radius: 8px; overflow: auto;
            max-height: 62vh; background: #fff; padding: 4px; }
.tree-box.fit svg.xdt-tree { width: 100%; height: auto; }
.keys { color: var(--muted); font-size: 12.5px; margin: 4px 0 8px; }
.keys span, .keys label { white-space: nowrap; margin-right: 12px; }
.key { display: inline-block; width: 22px; height: 10px; vertical-align: middle;
       border-radius: 2px; margin-right: 4px; }
.key.path { background: var(--path); }
.key.axp { background: #ffd166; border: 2px solid var(--axp); }
.key.cxp { border: 2px dashed var(--cxp); }
#xdt-detail { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px;
              margin-top: 10px; background: var(--soft); }
#xdt-detail ul { margin: 2px 0 4px; padding-left: 20px; }
#xdt-detail .rule { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
                    font-size: 12.5px; }
.table-tools { display: flex; gap: 10px; align-items: center; margin-bottom: 6px; }
.table-tools input { flex: 1; padding: 5px 8px; border: 1px solid var(--line);
                     border-radius: 6px; font: inherit; }
.table-box { max-height: 70vh; overflow: auto; border: 1px solid var(--line);
             border-radius: 8px; }
table.rows { border-collapse: collapse; width: 100%; font-size: 13px; }
table.rows th { position: sticky; top: 0; background: #eef0f4; text-align: left;
                padding: 5px 6px; cursor: pointer; user-select: none;
                border-bottom: 1px solid var(--line); vertical-align: bottom; }
table.rows th[aria-sort="ascending"]::after { content: " \\25B2"; font-size: 10px; }
table.rows th[aria-sort="descending"]::after { content: " \\25BC"; font-size: 10px; }
table.rows td { padding: 4px 6px; border-bottom: 1px solid var(--soft); vertical-align: top; }
table.rows td.mono { min-width: 8em; }
table.rows td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.rows tbody tr { cursor: pointer; }
table.rows tbody tr:hover { background: #f3f6fb; }
table.rows tbody tr.selected { background: #fde7ef; outline: 2px solid var(--path);
                               outline-offset: -2px; }
td.wrong { color: var(--bad); font-weight: bold; }
td.ok { color: var(--ok); }
td.bad { color: var(--bad); font-weight: bold; }
table.bars { border-collapse: collapse; width: 100%; font-size: 12.5px; }
table.bars td { padding: 1px 4px; white-space: nowrap; }
table.bars td.name { text-align: right; max-width: 14em; overflow: hidden;
                     text-overflow: ellipsis; }
table.bars td.bar { width: 100%; }
table.bars svg { display: block; }
footer { margin-top: 22px; color: var(--muted); font-size: 12.5px; }
footer dt { font-weight: bold; color: var(--ink); }
footer dd { margin: 0 0 6px 16px; }
""").substitute(font=FONT) + TREE_CSS
"""The page's style sheet (the tree's highlight styles, :data:`xdt.report._svg.CSS`,
included)."""

PAGE_JS = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("xdt-data").textContent);
  var prefix = data.prefix;
  var svg = document.querySelector("#xdt-tree-box svg.xdt-tree");
  var box = document.getElementById("xdt-tree-box");
  var table = document.getElementById("xdt-rows");
  var body = table.tBodies[0];
  var trs = Array.prototype.slice.call(body.rows);
  var byIndex = {};
  trs.forEach(function (tr) { byIndex[tr.getAttribute("data-i")] = tr; });
  var current = null;

  function byId(id) { return document.getElementById(id); }

  function add(parent, tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) { e.textContent = text; }
    if (cls) { e.className = cls; }
    parent.appendChild(e);
    return e;
  }

  function mark(r) {
    if (!svg) { return; }
    svg.querySelectorAll(".on-path, .axp, .cxp").forEach(function (e) {
      e.classList.remove("on-path", "axp", "cxp");
    });
    if (!r.p) { return; }
    var axp = new Set(r.a);
    var cxp = new Set();
    r.c.forEach(function (c) { c.forEach(function (f) { cxp.add(f); }); });
    r.p.forEach(function (k, i) {
      var node = byId(prefix + "n" + k);
      node.classList.add("on-path");
      if (k > 0) { byId(prefix + "e" + k).classList.add("on-path"); }
      if (node.hasAttribute("data-f") && axp.has(Number(node.getAttribute("data-f")))) {
        node.classList.add("axp");
        if (i + 1 < r.p.length) { byId(prefix + "e" + r.p[i + 1]).classList.add("axp"); }
      }
    });
    if (cxp.size) {
      svg.querySelectorAll(".xdt-split").forEach(function (n) {
        if (cxp.has(Number(n.getAttribute("data-f")))) { n.classList.add("cxp"); }
      });
    }
    if (!box.classList.contains("fit")) {  // bring the row's leaf into the picture's view
      var leaf = byId(prefix + "n" + r.p[r.p.length - 1]);
      var x = Number(leaf.getAttribute("data-x"));
      var y = Number(leaf.getAttribute("data-y"));
      if (x < box.scrollLeft + 40 || x > box.scrollLeft + box.clientWidth - 40) {
        box.scrollLeft = Math.max(0, x - box.clientWidth / 2);
      }
      if (y < box.scrollTop + 20 || y > box.scrollTop + box.clientHeight - 20) {
        box.scrollTop = Math.max(0, y - box.clientHeight / 2);
      }
    }
  }

  function detail(r) {
    var d = byId("xdt-detail");
    d.textContent = "";
    var head = add(d, "h3", "Row " + r.r + ": predicted " + r.pred);
    if (r.label !== null) {
      head.textContent += " (label " + r.label + (r.ok ? ")" : ", wrong)");
    }
    if (r.pr) {
      add(d, "p", "Its path (" + r.pn + " test" + (r.pn === 1 ? "" : "s") + "):");
      add(add(d, "ul"), "li", r.pr, "rule");
    }
    if (r.red !== null) {
      add(d, "p", r.red ? "Its path is explanation-redundant: some of its tests can be dropped."
                        : "Its path is not redundant: it is a PI-explanation.");
    }
    if (r.axp === null) {  // the row's time limit passed before its AXp was found
      add(d, "p", r.cut + ".");
    } else {
      add(d, "p", "AXp (" + r.a.length + " feature" + (r.a.length === 1 ? "" : "s") +
          " that alone guarantee the prediction):");
      add(add(d, "ul"), "li", r.axp, "rule");
    }
    add(d, "p", r.cx.length ? "CXps (minimal sets of features whose change can change it):"
                : r.more ? "CXps: none found."
                : "CXps: none (no change of features changes the prediction).");
    var ul = add(d, "ul");
    r.cx.forEach(function (t) { add(ul, "li", t, "rule"); });
    if (r.more) { add(ul, "li", r.more); }
    add(d, "p", "Certificate checked with the model's predict: " + r.chk);
    if (r.v.length) {
      add(d, "p", "Values:");
      add(d, "p", r.v.map(function (kv) { return kv[0] + " = " + kv[1]; }).join(", "), "rule");
    }
  }

  function select(i) {
    var r = data.rows[i];
    if (!r) { return; }
    if (current !== null && byIndex[current]) {
      byIndex[current].classList.remove("selected");
      byIndex[current].removeAttribute("aria-selected");
    }
    current = String(i);
    byIndex[current].classList.add("selected");
    byIndex[current].setAttribute("aria-selected", "true");
    mark(r);
    detail(r);
    byId("xdt-selected").textContent = "row " + r.r;
  }

  trs.forEach(function (tr) {
    tr.addEventListener("click", function () { select(Number(tr.getAttribute("data-i"))); });
    tr.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        select(Number(tr.getAttribute("data-i")));
      }
    });
  });

  // sorting: a click on a header sorts by its column, a second click reverses; text is
  // compared with the numbers in it as numbers (class 2 before class 10)
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var collate = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  heads.forEach(function (th, col) {
    th.addEventListener("click", function () {
      var asc = th.getAttribute("aria-sort") !== "ascending";
      heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var numeric = th.getAttribute("data-type") === "num";
      var keyed = trs.map(function (tr, pos) {
        var cell = tr.cells[col];
        var key = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort")
                                                 : cell.textContent;
        return { tr: tr, key: numeric ? Number(key) : key, pos: pos };
      });
      keyed.sort(function (a, b) {
        var c = numeric ? (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
                        : collate.compare(a.key, b.key);
        return (asc ? c : -c) || a.pos - b.pos;
      });
      trs = keyed.map(function (k) { return k.tr; });
      trs.forEach(function (tr) { body.appendChild(tr); });
    });
  });

  // filtering: the rows whose text, or values, hold every word typed; a word NAME=VALUE
  // holds when the column NAME (a header of the table, or a feature whose value the row
  // carries) is VALUE
  var filter = byId("xdt-filter");
  var shown = byId("xdt-shown");
  var texts = {};
  var fields = {};
  var columns = heads.map(function (th) { return th.textContent.trim().toLowerCase(); });
  trs.forEach(function (tr) {
    var i = tr.getAttribute("data-i");
    var r = data.rows[Number(i)];
    var values = r.v.map(function (kv) { return kv[0] + " = " + kv[1]; }).join(" ");
    texts[i] = (tr.textContent + " " + values).toLowerCase();
    var f = new Map();
    r.v.forEach(function (kv) { f.set(kv[0].toLowerCase(), String(kv[1]).toLowerCase()); });
    columns.forEach(function (c, k) { f.set(c, tr.cells[k].textContent.trim().toLowerCase()); });
    fields[i] = f;
  });
  function holds(i, w) {
    var eq = w.indexOf("=");
    if (eq > 0 && fields[i].has(w.slice(0, eq))) {
      return fields[i].get(w.slice(0, eq)) === w.slice(eq + 1);
    }
    return texts[i].indexOf(w) >= 0;
  }
  filter.addEventListener("input", function () {
    var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    var n = 0;
    trs.forEach(function (tr) {
      var i = tr.getAttribute("data-i");
      var ok = words.every(function (w) { return holds(i, w); });
      tr.hidden = !ok;
      if (ok) { n += 1; }
    });
    shown.textContent = n + " of " + trs.length;
  });

  var fit = byId("xdt-fit");
  if (fit) {
    fit.addEventListener("change", function () { box.classList.toggle("fit", fit.checked); });
  }

  if (data.rows.length) { select(0); }
  document.documentElement.setAttribute("data-ready", "true");
})();
"""
"""The page's script (see the module docstring)."""

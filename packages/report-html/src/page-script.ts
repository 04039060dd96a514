// The browser half of report.html, inlined verbatim. It only ever puts strings into the page with textContent (or
// through escapeHtml for the chart tooltips, which ECharts inserts as HTML): a row or transcript is data, never markup.
export const PAGE_SCRIPT = String.raw`
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("wfbench-data").textContent);
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) for (var key in attrs) {
      if (key === "text") node.textContent = attrs[key];
      else if (key === "className") node.className = attrs[key];
      else node.setAttribute(key, attrs[key]);
    }
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }
  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]; });
  }
  function num(value, digits) { return value === null || value === undefined ? "n/a" : Number(value).toFixed(digits); }
  function interval(v, digits) {
    if (!v || v.estimate === null) return "n/a";
    return num(v.estimate, digits) + " [" + num(v.low, digits) + ", " + num(v.high, digits) + "]";
  }
  function table(headers, rows) {
    var head = el("tr", null, headers.map(function (h) { return el("th", { text: h }); }));
    return el("table", null, [el("thead", null, [head]), el("tbody", null, rows)]);
  }
  var root = document.getElementById("app");
  root.appendChild(el("h1", { text: data.title }));
  data.notes.forEach(function (note) { root.appendChild(el("p", { className: "note", text: note })); });

  root.appendChild(el("h2", { text: "Main table" }));
  root.appendChild(el("p", { className: "hint", text: "Medians over valid runs; cost $ is the cost of record (gateway wire usage). Click any cell to open its runs' transcripts and patches." }));
  var mainRows = data.cells.map(function (cell, index) {
    var values = [cell.task, cell.class, cell.arm, cell.resolved + "/" + cell.valid_runs + (cell.excluded_runs ? " (" + cell.excluded_runs + " excluded)" : ""),
      num(cell.cost_usd, 4), num(cell.cli_cost_usd, 4), num(cell.duration_s, 1), num(cell.num_turns, 0), num(cell.output_tokens, 0), cell.errors];
    var tr = el("tr", { "data-cell": String(index) }, values.map(function (v) { return el("td", { text: String(v), "data-cell": String(index), tabindex: "0" }); }));
    tr.addEventListener("click", function () { showCell(index, 0); });
    return tr;
  });
  root.appendChild(table(["task", "class", "arm", "resolved", "cost $", "CLI $", "wall s", "turns", "output", "errors"], mainRows));

  function chartBox(id, title) {
    root.appendChild(el("h3", { text: title }));
    var box = el("div", { id: id, className: "chart" });
    root.appendChild(box);
    return box;
  }
  var charts = [];
  function plot(box, option) {
    if (typeof echarts === "undefined") { box.textContent = "chart library missing"; return; }
    var chart = echarts.init(box, null, { renderer: "svg" });
    chart.setOption(option);
    charts.push(chart);
  }
  root.appendChild(el("h2", { text: "Charts" }));
  var arms = [];
  data.cells.forEach(function (c) { if (arms.indexOf(c.arm) < 0) arms.push(c.arm); });
  plot(chartBox("chart-cost-resolve", "Cost of record vs resolve rate, per arm (one point per task)"), {
    animation: false,
    legend: { data: arms },
    tooltip: { formatter: function (p) { return escapeHtml(p.seriesName + " / " + p.data[2] + ": $" + num(p.data[0], 4) + ", resolved " + num(p.data[1] * 100, 0) + "%"); } },
    xAxis: { type: "value", name: "median cost $", scale: true },
    yAxis: { type: "value", name: "resolve rate", min: 0, max: 1 },
    series: arms.map(function (arm) {
      return { name: arm, type: "scatter", symbolSize: 14, data: data.cells.filter(function (c) { return c.arm === arm && c.cost_usd !== null; }).map(function (c) { return [c.cost_usd, c.valid_runs ? c.resolved / c.valid_runs : 0, c.task]; }) };
    }),
  });
  var metrics = [["cost_usd", "cost $", 4], ["duration_s", "wall s", 1], ["num_turns", "turns", 1]];
  var comparisons = data.comparisons.filter(function (c) { return c.pairs > 0; });
  metrics.forEach(function (m) {
    var rows = comparisons.filter(function (c) { return c[m[0]].estimate !== null; });
    var labels = rows.map(function (c) { return (c.task === null ? "all tasks" : c.task) + " \u00b7 " + c.arm + " vs " + c.reference; });
    plot(chartBox("chart-delta-" + m[0], "Paired \u0394 " + m[1] + " (arm \u2212 reference): median and bootstrap 95% interval"), {
      animation: false,
      grid: { left: 260 },
      tooltip: { formatter: function (p) { var c = rows[p.dataIndex]; return escapeHtml(labels[p.dataIndex] + ": " + interval(c[m[0]], m[2]) + " over " + c.pairs + " pair(s)"); } },
      yAxis: { type: "category", data: labels },
      xAxis: { type: "value", name: "\u0394 " + m[1], scale: true },
      series: [{ type: "boxplot", data: rows.map(function (c) { var v = c[m[0]]; return [v.low, v.estimate, v.estimate, v.estimate, v.high]; }) }],
    });
  });

  root.appendChild(el("h2", { text: "Paired comparisons" }));
  root.appendChild(table(["task", "arm", "vs", "pairs", "\u0394 cost $", "\u0394 wall s", "\u0394 turns", "\u0394 resolve rate", "runs for 5% cost"], data.comparisons.map(function (c) {
    var arm = c.arm + (c.arm_resolved < c.pairs ? " (arm resolved " + c.arm_resolved + "/" + c.pairs + ")" : "");
    return el("tr", null, [c.task === null ? "all tasks" : c.task, arm, c.reference, String(c.pairs), interval(c.cost_usd, 4), interval(c.duration_s, 1), interval(c.num_turns, 1), interval(c.resolve_rate_diff, 2), c.runs_for_5pct_cost === null ? "n/a" : String(c.runs_for_5pct_cost)].map(function (v) { return el("td", { text: v }); }));
  })));

  if (data.review.length > 0) {
    root.appendChild(el("h2", { text: "Review quality" }));
    root.appendChild(table(["case", "arm", "TP", "FP", "FN", "precision", "recall", "blocker recall", "weighted F1", "grounding"], data.review.map(function (r) {
      return el("tr", null, [r.task, r.arm, num(r.tp, 1), num(r.fp, 1), num(r.fn, 1), num(r.precision, 3), num(r.recall, 3), num(r.blocker_recall, 3), num(r.weighted_f1, 3), num(r.grounding, 3)].map(function (v) { return el("td", { text: v }); }));
    })));
  }

  root.appendChild(el("h2", { text: "Run provenance" }));
  root.appendChild(el("ul", null, data.provenance.map(function (p) { return el("li", null, [el("strong", { text: p[0] + ": " }), el("span", { text: p[1] })]); })));

  var drill = el("section", { id: "drill", hidden: "" });
  root.appendChild(drill);
  function showCell(index, runIndex) {
    var cell = data.cells[index];
    drill.textContent = "";
    drill.hidden = false;
    drill.appendChild(el("h2", { text: "Runs of " + cell.task + " / " + cell.arm }));
    var picker = el("div", { className: "runs" });
    cell.runs.forEach(function (run, i) {
      var button = el("button", { type: "button", className: i === runIndex ? "active" : "", text: "run " + run.run + (run.resolved ? " \u2713" : " \u2717") + (run.error_kind ? " " + run.error_kind : "") });
      button.addEventListener("click", function () { showCell(index, i); });
      picker.appendChild(button);
    });
    drill.appendChild(picker);
    var run = cell.runs[runIndex];
    if (!run) { drill.appendChild(el("p", { text: "no runs recorded" })); return; }
    drill.appendChild(el("p", { className: "hint", text: "cost $" + num(run.cost_usd, 4) + ", wall " + num(run.duration_s, 1) + " s, " + num(run.num_turns, 0) + " turns" }));
    if (run.transcripts.length === 0) drill.appendChild(el("p", { text: "no transcript recorded for this run" }));
    run.transcripts.forEach(function (t) {
      drill.appendChild(el("h3", { text: "Transcript " + t.path + (t.problem ? " \u2014 " + t.problem : "") }));
      var convo = el("div", { className: "conversation" });
      t.items.forEach(function (item) {
        var label = item.role + " \u00b7 " + item.kind.replace("_", " ") + (item.name ? " \u00b7 " + item.name : "") + (item.skill ? " \u00b7 skill proof" : "");
        convo.appendChild(el("div", { className: "msg " + item.role + " " + item.kind + (item.skill ? " skill" : "") + (item.error ? " error" : "") }, [el("div", { className: "label", text: label }), el("pre", { text: item.text })]));
      });
      drill.appendChild(convo);
    });
    drill.appendChild(el("h3", { text: "Patch" + (run.patch_path ? " " + run.patch_path : "") }));
    drill.appendChild(el("pre", { className: "patch", text: run.patch === null ? "no patch recorded" : run.patch }));
    drill.scrollIntoView();
  }
  window.addEventListener("resize", function () { charts.forEach(function (c) { c.resize(); }); });
  document.body.setAttribute("data-ready", "true");
})();
`;

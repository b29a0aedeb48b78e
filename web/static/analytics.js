// The analytics page's pictures (web/templates/ui/analytics.html), drawn with the vendored uPlot like charts.js:
// pages per day stacked by medium ([data-analytics-pages]: {t, media: {MEDIUM: [n per day]}}), median MTTA and
// MTTR per day in minutes ([data-analytics-times]: {t, mtta, mttr} in seconds) and a heat map of pages by hour of
// the week ([data-analytics-heat]: {cells: 168 counts, Monday 00:00 first}). After drawing, each element carries
// data-drawn="1" (and the heat map data-cells, the cells painted) so tests can read the picture back.
(function () {
  "use strict";
  var PALETTE = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f", "#5d4037", "#455a64"];

  function width(el) { return el.clientWidth > 0 ? Math.min(el.clientWidth, 640) : 320; }

  function stacked(el) {
    var d = JSON.parse(el.getAttribute("data-analytics-pages")), names = Object.keys(d.media);
    var sums = d.t.map(function () { return 0; }), data = [d.t], series = [{}];
    names.forEach(function (name, i) {
      sums = sums.map(function (s, j) { return s + d.media[name][j]; });
      data.push(sums.slice());
      series.push({label: name, stroke: PALETTE[i % PALETTE.length], fill: PALETTE[i % PALETTE.length] + "55",
                   width: 1.5, paths: uPlot.paths && uPlot.paths.stepped ? uPlot.paths.stepped({align: 1}) : undefined});
    });
    // draw the biggest sum first so that each medium's band shows above the one below it
    el.textContent = "";
    new uPlot({width: width(el), height: 180, scales: {x: {time: true}, y: {range: function (u, lo, hi) { return [0, Math.max(hi, 1)]; }}},
               series: [series[0]].concat(series.slice(1).reverse()), select: {show: false}},
              [data[0]].concat(data.slice(1).reverse()), el);
    el.setAttribute("data-drawn", "1");
  }

  function times(el) {
    var d = JSON.parse(el.getAttribute("data-analytics-times"));
    var minutes = function (v) { return v === null ? null : Math.round(v / 6) / 10; };
    el.textContent = "";
    new uPlot({width: width(el), height: 180, scales: {x: {time: true}}, select: {show: false},
               series: [{}, {label: "MTTA (min)", stroke: "#1565c0", width: 2, spanGaps: true},
                        {label: "MTTR (min)", stroke: "#c62828", width: 2, spanGaps: true}]},
              [d.t, d.mtta.map(minutes), d.mttr.map(minutes)], el);
    el.setAttribute("data-drawn", "1");
  }

  function heat(el) {
    var d = JSON.parse(el.getAttribute("data-analytics-heat")), most = Math.max.apply(null, d.cells.concat([1]));
    el.textContent = "";
    new uPlot({width: width(el), height: 190, legend: {show: false}, cursor: {show: false}, select: {show: false},
               scales: {x: {time: false, range: [0, 24]}, y: {range: [0, 7]}},
               axes: [{values: function (u, splits) { return splits.map(function (v) { return v + "h"; }); }},
                      {values: function (u, splits) { return splits.map(function (v) {
                        return ["Sun", "Sat", "Fri", "Thu", "Wed", "Tue", "Mon"][Math.floor(v)] || ""; }); }}],
               series: [{}, {show: false}],
               hooks: {draw: [function (u) {
                 var ctx = u.ctx, painted = 0;
                 ctx.save();
                 d.cells.forEach(function (n, i) {
                   if (!n) { return; }
                   var day = Math.floor(i / 24), hour = i % 24;
                   var x0 = u.valToPos(hour, "x", true), x1 = u.valToPos(hour + 1, "x", true);
                   var y0 = u.valToPos(7 - day, "y", true), y1 = u.valToPos(6 - day, "y", true);
                   ctx.fillStyle = "rgba(198, 40, 40, " + (0.15 + 0.85 * n / most).toFixed(3) + ")";
                   ctx.fillRect(x0, y0, Math.max(x1 - x0 - 1, 1), Math.max(y1 - y0 - 1, 1));
                   painted += 1;
                 });
                 ctx.restore();
                 el.setAttribute("data-cells", String(painted));
               }]}}, [[0, 24], [0, 0]], el);
    el.setAttribute("data-drawn", "1");
  }

  function drawAll() {
    if (typeof uPlot === "undefined") { return; }
    document.querySelectorAll("[data-analytics-pages]").forEach(stacked);
    document.querySelectorAll("[data-analytics-times]").forEach(times);
    document.querySelectorAll("[data-analytics-heat]").forEach(heat);
  }

  document.addEventListener("DOMContentLoaded", drawAll);
}());

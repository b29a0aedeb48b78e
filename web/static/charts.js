// Pictures drawn with the vendored uPlot (static/vendor/uplot): sparklines ([data-spark]: {t, v, label}) and a
// check's state timeline ([data-timeline]: {start, end, bands: [[from, to, state]], windows: [[from, to,
// kind]], alerts: [time]}). The timeline has three lanes: state bands, maintenance (grey) and
// acknowledgements (blue), alert ticks. After drawing, the timeline element carries data-bands (bands
// drawn) and data-state-lane ("left right y" in canvas pixels) so tests can read the picture back.
(function () {
  "use strict";
  var COLOURS = {ok: "#2e7d32", warning: "#f9a825", critical: "#c62828", unknown: "#6a1b9a", "": "#bdbdbd",
                 scheduled: "#78909c", unscheduled: "#1565c0", alert: "#212121"};

  function sparkline(el) {
    var d = JSON.parse(el.getAttribute("data-spark"));
    el.textContent = "";
    /* global uPlot */
    new uPlot({
      width: 180, height: 44, pxAlign: false, cursor: {show: false}, legend: {show: false}, select: {show: false},
      scales: {x: {time: true}}, axes: [{show: false}, {show: false}],
      series: [{}, {stroke: "#1565c0", width: 1.5, fill: "rgba(21, 101, 192, 0.15)", points: {show: false}}]
    }, [d.t, d.v], el);
  }

  function span(u, from, to) {
    var x0 = Math.round(u.valToPos(from, "x", true)), x1 = Math.round(u.valToPos(to, "x", true));
    return [x0, Math.max(x1 - x0, 1)];
  }

  function drawTimeline(el, d) {
    return function (u) {
      var ctx = u.ctx, box = u.bbox, lane = Math.floor(box.height / 5);
      var stateTop = box.top, windowTop = box.top + 3 * lane, tickTop = box.top + 4 * lane;
      ctx.save();
      d.bands.forEach(function (b) {
        var x = span(u, b[0], b[1]);
        ctx.fillStyle = COLOURS[b[2]] || COLOURS[""];
        ctx.fillRect(x[0], stateTop, x[1], 3 * lane - 4);
      });
      d.windows.forEach(function (w) {
        var x = span(u, w[0], w[1]);
        ctx.fillStyle = COLOURS[w[2]] || COLOURS.scheduled;
        ctx.fillRect(x[0], windowTop + (w[2] === "unscheduled" ? lane / 2 : 0), x[1], lane / 2 - 2);
      });
      ctx.fillStyle = COLOURS.alert;
      d.alerts.forEach(function (t) {
        ctx.fillRect(Math.round(u.valToPos(t, "x", true)), tickTop, 2, lane - 2);
      });
      ctx.restore();
      el.setAttribute("data-bands", String(d.bands.length));
      el.setAttribute("data-state-lane", [Math.round(box.left), Math.round(box.left + box.width),
                                          Math.round(stateTop + (3 * lane - 4) / 2)].join(" "));
    };
  }

  function timeline(el) {
    var d = JSON.parse(el.getAttribute("data-timeline"));
    el.textContent = "";
    new uPlot({
      width: el.clientWidth > 0 ? el.clientWidth : 300, height: 130, pxAlign: false, legend: {show: false}, select: {show: false},
      cursor: {show: false}, scales: {x: {time: true, range: [d.start, d.end]}, y: {range: [0, 1]}},
      axes: [{}, {show: false}], series: [{}, {show: false}],
      hooks: {draw: [drawTimeline(el, d)]}
    }, [[d.start, d.end], [0, 0]], el);
  }

  function drawAll() {
    if (typeof uPlot === "undefined") { return; }
    document.querySelectorAll("[data-spark]").forEach(sparkline);
    document.querySelectorAll("[data-timeline]").forEach(timeline);
  }

  window.flapjackCharts = drawAll;  // live.js calls it after swapping fresh parts in
  document.addEventListener("DOMContentLoaded", drawAll);
}());

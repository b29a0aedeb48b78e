// Times in the viewer's time zone: every <time class="local" datetime="ISO 8601"> is rewritten to the
// browser's local time; its title keeps the UTC time (shown on hover). Without JavaScript, UTC stays.
// live.js calls window.flapjackLocalTimes again after it swaps fresh HTML in.
(function () {
  "use strict";
  var shown = {year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit",
               second: "2-digit", timeZoneName: "short"};
  window.flapjackLocalTimes = function () {
    document.querySelectorAll("time.local[datetime]").forEach(function (element) {
      var moment = new Date(element.getAttribute("datetime"));
      if (!isNaN(moment.getTime())) {
        element.textContent = moment.toLocaleString(undefined, shown);
      }
    });
  };
  document.addEventListener("DOMContentLoaded", window.flapjackLocalTimes);
}());

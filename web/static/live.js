// Live pages without reloads: every few seconds the page's own URL is fetched again (server-rendered
// HTML) and each top-level part of <main>, the menu and the title are swapped in place. A part holding
// the focused control or a form field someone has changed is never touched, so a half-typed
// acknowledgement stays. "Updated N s ago" and the Pause button sit in the header (#live).
// The period (seconds) is <body data-live-every>; Pause is remembered in this browser (localStorage).
(function () {
  "use strict";
  var PAUSE_KEY = "flapjack-live-paused";
  var updated = Date.now();
  var running = false;

  function changed(field) {
    if (field.type === "hidden" || field.type === "submit" || field.type === "button") { return false; }
    if (field.type === "checkbox" || field.type === "radio") { return field.checked !== field.defaultChecked; }
    if (field.tagName === "SELECT") {
      return Array.prototype.some.call(field.options, function (o) { return o.selected !== o.defaultSelected; });
    }
    return field.value !== field.defaultValue;
  }

  function busy(part) {
    if (part.contains(document.activeElement) && document.activeElement !== document.body) { return true; }
    if (part.matches("details[open]") || part.querySelector("details[open]")) { return true; }  // an opened form
    return Array.prototype.some.call(part.querySelectorAll("input, textarea, select"), changed);
  }

  function swap(fresh) {
    var main = document.querySelector("main"), next = fresh.querySelector("main");
    if (!main || !next) { return; }
    var parts = main.children, nextParts = next.children;
    var same = parts.length === nextParts.length && Array.prototype.every.call(parts, function (p, i) {
      return p.tagName === nextParts[i].tagName && p.id === nextParts[i].id;
    });
    if (same) {
      Array.prototype.slice.call(parts).forEach(function (part, i) {
        if (!busy(part) && part.innerHTML !== nextParts[i].innerHTML) {
          part.replaceWith(document.importNode(nextParts[i], true));
        }
      });
    } else if (!busy(main)) {
      main.replaceWith(document.importNode(next, true));
    }
    ["header.top nav", "footer"].forEach(function (selector) {
      var old = document.querySelector(selector), neu = fresh.querySelector(selector);
      if (old && neu && !busy(old)) { old.replaceWith(document.importNode(neu, true)); }
    });
    document.title = fresh.title;
    if (window.flapjackLocalTimes) { window.flapjackLocalTimes(); }
    if (window.flapjackCharts) { window.flapjackCharts(); }
    if (window.flapjackBulk) { window.flapjackBulk(); }  // the action bar follows the boxes still ticked
  }

  function refresh() {
    if (running || paused()) { return; }
    running = true;
    fetch(window.location.href, {credentials: "same-origin", headers: {"X-Flapjack-Live": "1"}})
      .then(function (response) {
        if (!response.ok || response.redirected) { throw new Error("status " + response.status); }
        return response.text();
      })
      .then(function (text) {
        swap(new DOMParser().parseFromString(text, "text/html"));
        updated = Date.now();
        setStatus("");
      })
      .catch(function () { setStatus(" (update failed, retrying)"); })
      .then(function () { running = false; });
  }

  function paused() { return window.localStorage.getItem(PAUSE_KEY) === "1"; }

  function setStatus(extra) {
    var age = document.getElementById("live-age"), button = document.getElementById("live-pause");
    if (age) {
      age.textContent = paused() ? "paused" : "updated " + Math.round((Date.now() - updated) / 1000) + " s ago" + extra;
    }
    if (button) { button.textContent = paused() ? "Resume" : "Pause"; button.setAttribute("aria-pressed", String(paused())); }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var every = parseInt(document.body.getAttribute("data-live-every") || "0", 10);
    var live = document.getElementById("live");
    if (!every || !live) { return; }
    live.hidden = false;
    document.getElementById("live-pause").addEventListener("click", function () {
      if (paused()) { window.localStorage.removeItem(PAUSE_KEY); refresh(); } else { window.localStorage.setItem(PAUSE_KEY, "1"); }
      setStatus("");
    });
    setStatus("");
    window.setInterval(function () { setStatus(""); }, 1000);
    window.setInterval(refresh, every * 1000);
  });
}());

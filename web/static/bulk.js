// Selecting checks for a bulk action (form#bulk): a box per row (form="bulk"), a box per list that selects
// the rows of that list on this page, "all N matching checks", a count, and one confirmation on submit.
// Boxes of the same check in two lists (unhandled and all) follow each other. The form is a bar fixed at the
// bottom of the screen, shown once something is selected (without JS it is always shown).
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function boxes() { return Array.prototype.slice.call(document.querySelectorAll("input[form=bulk][name=ids]")); }

  function selected() {
    var seen = {};
    boxes().forEach(function (box) { if (box.checked) { seen[box.value] = true; } });
    return Object.keys(seen).length;
  }

  function allMatching() {
    return document.querySelector("#bulk input[name=all_matching], input[form=bulk][name=all_matching]");
  }

  function chosen(form) {
    var all = allMatching();
    return all && all.checked ? parseInt(form.getAttribute("data-matching") || "0", 10) : selected();
  }

  function update() {
    var form = document.getElementById("bulk");
    if (!form) { return; }
    var n = chosen(form);
    document.querySelectorAll("#bulk-count, #bulk .bulk-n").forEach(function (el) { el.textContent = String(n); });
    form.classList.toggle("idle", n === 0);
    document.body.classList.toggle("bar-shown", n > 0);
  }

  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!(box instanceof HTMLInputElement) || box.type !== "checkbox") { return; }
    if (box.classList.contains("select-page")) {
      box.closest("table").querySelectorAll("input[form=bulk][name=ids]").forEach(function (row) {
        row.checked = box.checked;
        boxes().forEach(function (other) { if (other.value === row.value) { other.checked = box.checked; } });
      });
    } else if (box.name === "ids") {
      boxes().forEach(function (other) { if (other.value === box.value) { other.checked = box.checked; } });
    }
    update();
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || form.id !== "bulk") { return; }
    var n = chosen(form), button = event.submitter, action = form.querySelector("select[name=action]");
    var label = button && button.name === "do" ? button.textContent.replace(/\s*\(\d+\)\s*$/, "").trim()
      : action ? action.options[action.selectedIndex].text : "Apply";
    if (n === 0) {
      event.preventDefault();
      window.alert("Select at least one check (or all matching checks) first.");
      return;
    }
    if (!window.confirm(label + ": " + n + " check" + (n === 1 ? "" : "s") + "?")) { event.preventDefault(); }
  });

  // Forms that act on many checks at once ask once (data-confirm); "until 08:00" is read in the browser's zone.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-confirm")) { return; }
    if (!window.confirm(form.getAttribute("data-confirm"))) { event.preventDefault(); }
  });

  function browserZone() {
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
    if (zone) { document.querySelectorAll("input[data-browser-zone]").forEach(function (el) { el.value = zone; }); }
  }

  window.flapjackBulk = update;
  document.addEventListener("DOMContentLoaded", function () { update(); browserZone(); });
}());

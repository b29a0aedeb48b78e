// Selecting checks for a bulk action (form#bulk): a box per row (form="bulk"), a box per list that selects
// the rows of that list on this page, "all N matching checks", a count, and one confirmation on submit.
// Boxes of the same check in two lists (unhandled and all) follow each other.
(function () {
  "use strict";

  function boxes() { return Array.prototype.slice.call(document.querySelectorAll("input[form=bulk][name=ids]")); }

  function selected() {
    var seen = {};
    boxes().forEach(function (box) { if (box.checked) { seen[box.value] = true; } });
    return Object.keys(seen).length;
  }

  function chosen(form) {
    var all = form.querySelector("input[name=all_matching]");
    return all && all.checked ? parseInt(form.getAttribute("data-matching") || "0", 10) : selected();
  }

  function update() {
    var form = document.getElementById("bulk"), count = document.getElementById("bulk-count");
    if (form && count) { count.textContent = String(chosen(form)); }
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
    var n = chosen(form), action = form.querySelector("select[name=action]");
    var label = action ? action.options[action.selectedIndex].text : "Apply";
    if (n === 0) {
      event.preventDefault();
      window.alert("Select at least one check (or all matching checks) first.");
      return;
    }
    if (!window.confirm(label + ": " + n + " check" + (n === 1 ? "" : "s") + "?")) { event.preventDefault(); }
  });

  document.addEventListener("DOMContentLoaded", update);
}());

// New order: "Add a line" copies the last line's fields with the next number, empty.
// The form works without it (the button stays hidden): it is sent with the lines shown.
(function () {
  var button = document.getElementById("add-line");
  var lines = document.getElementById("lines");
  if (!button || !lines) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    var all = lines.querySelectorAll("fieldset.line");
    var last = all[all.length - 1];
    var next = 0;
    all.forEach(function (line) { next = Math.max(next, Number(line.dataset.line) + 1); });
    var copy = last.cloneNode(true);
    var from = "lines-" + last.dataset.line + "-";
    var to = "lines-" + next + "-";
    copy.dataset.line = String(next);
    copy.querySelector("legend").textContent = "Line " + (all.length + 1);
    copy.querySelectorAll(".error").forEach(function (error) { error.remove(); });
    copy.querySelectorAll("[id], [name], [for]").forEach(function (element) {
      ["id", "name", "for"].forEach(function (attribute) {
        var value = element.getAttribute(attribute);
        if (value && value.indexOf(from) === 0) element.setAttribute(attribute, to + value.slice(from.length));
      });
      if (element.tagName === "INPUT") element.value = "";
    });
    lines.appendChild(copy);
    copy.querySelector("input").focus();
  });
})();

// The work order's Print button: shown only where this script runs (no inline script: CSP).
document.addEventListener("DOMContentLoaded", function () {
  var button = document.getElementById("print-button");
  if (!button) return;
  button.hidden = false;
  button.addEventListener("click", function () { window.print(); });
});

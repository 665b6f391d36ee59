// The header's menu on a phone: the "Menu" button shows and hides the navigation and the
// account links (aria-expanded says which); Escape closes it and gives the button the focus.
// Loaded right after the header, so the folded header is what a phone first paints. Without
// script the button stays hidden and the navigation open (admin.css: header.top.has-menu).
(function () {
  "use strict";
  var header = document.querySelector("header.top");
  var button = header && header.querySelector(".menu-toggle");
  var menu = button && document.getElementById(button.getAttribute("aria-controls"));
  if (!menu) return;

  function show(open) {
    button.setAttribute("aria-expanded", open ? "true" : "false");
    header.classList.toggle("open", open);
  }

  header.classList.add("has-menu");
  button.addEventListener("click", function () {
    show(button.getAttribute("aria-expanded") !== "true");
  });
  header.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && header.classList.contains("open")) {
      show(false);
      button.focus();
    }
  });
})();

// The site's menu on a phone: one row, the brand and a "Menu" button (as the console's
// header), not three rows of links. The menu is served open (so a browser without scripts
// shows every link); this classic script runs as the header is parsed, before the page is
// drawn, and folds it where the screen is narrow (the class `folds` turns on its button). On a wider screen the links stay in the
// header and the button is hidden (style.css).
(function () {
  var menu = document.getElementById("site-menu");
  if (!menu || !window.matchMedia) return;
  var wide = window.matchMedia("(min-width: 48rem)");
  var fit = function () {
    menu.open = wide.matches;
  };
  menu.classList.add("folds");
  fit();
  if (wide.addEventListener) wide.addEventListener("change", fit);
})();

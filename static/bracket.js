// The print report's Print button (shown only when this script runs).
document.addEventListener("DOMContentLoaded", () => {
  const button = document.getElementById("print-button");
  if (button) {
    button.hidden = false;
    button.addEventListener("click", () => window.print());
  }
});

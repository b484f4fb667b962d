// Adds a hand row without a round trip to the server. Without JavaScript the
// "Add a hand" button posts the form and the server adds the row instead.
document.addEventListener("DOMContentLoaded", () => {
  const add = document.getElementById("add-hand");
  const hands = document.getElementById("hands");
  if (!add || !hands) return;
  add.addEventListener("click", (event) => {
    const rows = hands.querySelectorAll("fieldset.hand");
    const last = rows[rows.length - 1];
    if (!last) return;
    event.preventDefault();
    const index = rows.length;
    const row = last.cloneNode(true);
    row.classList.remove("has-error");
    row.dataset.hand = String(index + 1);
    row.querySelector(".hand-number").textContent = String(index + 1);
    row.querySelectorAll(".field-error").forEach((el) => el.remove());
    row.querySelectorAll("input, select").forEach((el) => {
      el.name = el.name.replace(/^h\d+_/, "h" + index + "_");
      el.removeAttribute("aria-invalid");
      el.removeAttribute("aria-describedby");
      el.classList.remove("invalid");
      if (el.type === "checkbox") el.checked = false;
      else el.value = "";
    });
    hands.appendChild(row);
    const first = row.querySelector("select");
    if (first) first.focus();
  });
});

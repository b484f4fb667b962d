// A file chosen in an `<input type="file" data-fills="ID">` is read into the box with that
// id, so the form posts it as if it had been pasted (without JavaScript, the box is pasted
// into by hand). The league import and the roster import use it.
document.addEventListener("DOMContentLoaded", () => {
  for (const file of document.querySelectorAll("input[type=file][data-fills]")) {
    const box = document.getElementById(file.dataset.fills);
    if (!box) {
      continue;
    }
    file.addEventListener("change", async () => {
      const chosen = file.files && file.files[0];
      if (chosen) {
        box.value = await chosen.text();
      }
    });
  }
});

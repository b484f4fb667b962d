// The league import page: a file chosen is read into the document box, so the form posts it
// as if it had been pasted (without JavaScript, the box is pasted into by hand).
document.addEventListener("DOMContentLoaded", () => {
  const file = document.getElementById("import-file");
  const box = document.getElementById("import-document");
  if (!file || !box) {
    return;
  }
  file.addEventListener("change", async () => {
    const chosen = file.files && file.files[0];
    if (chosen) {
      box.value = await chosen.text();
    }
  });
});

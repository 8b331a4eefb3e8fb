// Keyboard shortcuts of the labeling page (/dashboard/label): a key named by a button's
// data-key (1, 2, 3, s) presses that button. Without this script the buttons' accesskeys and
// plain form submission do the same; nothing here is needed to label.
"use strict";

function typingIn(target) {
  return target instanceof HTMLElement &&
    (target.isContentEditable || ["TEXTAREA", "INPUT", "SELECT"].includes(target.tagName));
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing || event.repeat) {
    return;
  }
  if (typingIn(event.target)) {
    // Escape leaves the note, so that the shortcuts work again.
    if (event.key === "Escape") {
      event.target.blur();
    }
    return;
  }
  const key = event.key.toLowerCase();
  const button = [...document.querySelectorAll("button[data-key]")]
    .find((candidate) => candidate.dataset.key === key);
  if (button) {
    event.preventDefault();
    button.click();
  }
});

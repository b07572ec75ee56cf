// The APL editor: a textarea over a highlighted <pre>. The textarea's own
// text is transparent, so the user edits real text with native selection,
// undo and IME, and sees the colours of the layer beneath.

import { render, offsetOf, errorSpan } from "./highlight.js";

export class Editor {
  // onChange(text) hears of every change of the text, typed or set.
  constructor(root, { onRun, onChange = () => {} }) {
    this.onChange = () => {}; // set after the first paint, which is no change
    this.area = root.querySelector("textarea");
    this.hl = root.querySelector(".hl");
    this.err = null; // [start, end) of the marked error
    this.area.addEventListener("input", () => {
      this.err = null; // the text moved under the mark
      this.paint();
    });
    this.area.addEventListener("scroll", () => this.syncScroll());
    this.area.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        onRun();
      } else if (e.key === "Tab" && !e.shiftKey) {
        e.preventDefault();
        this.area.setRangeText("  ", this.area.selectionStart, this.area.selectionEnd, "end");
        this.paint();
      }
    });
    this.paint();
    this.onChange = onChange;
  }

  get value() {
    return this.area.value;
  }

  set value(v) {
    this.area.value = v;
    this.err = null;
    this.paint();
  }

  // markError underlines the token at a 1-based line and column and puts
  // the caret there; markError(null) clears the mark.
  markError(pos) {
    if (!pos) {
      this.err = null;
    } else {
      const text = this.area.value;
      this.err = errorSpan(text, offsetOf(text, pos.line, pos.col));
    }
    this.paint();
    if (this.err) {
      this.area.setSelectionRange(this.err[0], this.err[0]);
    }
  }

  // markSyntax underlines the error found while typing (pos is 1-based
  // {line, col}, or null to clear it) without moving the caret.
  markSyntax(pos) {
    const text = this.area.value;
    this.err = pos ? errorSpan(text, offsetOf(text, pos.line, pos.col)) : null;
    this.paint();
  }

  insert(text) {
    this.area.focus();
    this.area.setRangeText(text, this.area.selectionStart, this.area.selectionEnd, "end");
    this.paint();
  }

  paint() {
    this.hl.innerHTML = render(this.area.value, this.err);
    this.onChange(this.area.value);
    this.syncScroll();
  }

  syncScroll() {
    this.hl.scrollTop = this.area.scrollTop;
    this.hl.scrollLeft = this.area.scrollLeft;
  }
}

// What does not fit a small screen: the table's rare tools under More, and a sign on a question box
// that scrolls (a fade and "3 more below") until its end is in view.
"use strict";

const Overflow = (() => {
  // More is a disclosure button: Tab goes on into the tools it shows, Escape or a click elsewhere closes.
  function menu() {
    const tools = document.querySelector(".tools");
    const toggle = $("btn-more");
    const show = (open) => {
      tools.classList.toggle("open", open);
      toggle.setAttribute("aria-expanded", String(open));
    };
    toggle.addEventListener("click", () => show(!tools.classList.contains("open")));
    $("tools-more").addEventListener("click", () => show(false)); // a tool chosen: the menu is done
    tools.addEventListener("keydown", (ev) => {
      if (ev.key !== "Escape" || !tools.classList.contains("open")) return;
      ev.stopPropagation();
      show(false);
      toggle.focus();
    });
    tools.addEventListener("focusout", (ev) => {
      if (ev.relatedTarget && !tools.contains(ev.relatedTarget)) show(false);
    });
    // At the press, not the click: the table redraws its cards and seats under the pointer, and a
    // press whose element is replaced before the release makes no click at all.
    const outside = (ev) => { if (!tools.contains(ev.target)) show(false); };
    document.addEventListener("pointerdown", outside, true);
    document.addEventListener("click", outside, true);
  }

  // The box's sign follows its scrolling and its size (a turned phone, a language with taller lines).
  function watch(box) {
    box.addEventListener("scroll", () => update(box), { passive: true });
    new ResizeObserver(() => update(box)).observe(box);
  }

  // Called each time the box is drawn again: the sign is its last child, over the bottom edge.
  function mark(box) {
    const sign = h("div", { class: "more-below", "aria-hidden": "true", hidden: true,
      onclick: () => box.scrollBy({ top: box.clientHeight * 0.7, behavior: "smooth" }) });
    box.append(sign);
    update(box);
  }

  // Hidden once the end is in view; else the number of choices (mostly) out of sight below.
  function update(box) {
    const sign = box.querySelector(".more-below");
    if (!sign) return;
    if (box.hidden || box.scrollHeight - box.clientHeight - box.scrollTop <= 2) {
      sign.hidden = true;
      return;
    }
    sign.hidden = false;
    const edge = box.getBoundingClientRect().bottom - sign.offsetHeight;
    const below = [...box.querySelectorAll(".choices > button, .target")].filter((el) => {
      const r = el.getBoundingClientRect();
      return r.top + r.height / 2 > edge;
    }).length;
    sign.textContent = below ? t("table.more-below", { n: below }) : t("table.more-below-any");
  }

  return { menu, watch, mark };
})();

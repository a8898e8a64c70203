// The table's motion, presentation only: events shown one after another, cards travelling (FLIP).
"use strict";

const Motion = (() => {
  const queue = [];
  let busy = false;

  function reduced() {
    return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  // Each step is an async function; a fast run of computer plays is shown in order, none skipped.
  function push(step) {
    queue.push(step);
    if (!busy) run();
  }

  async function run() {
    busy = true;
    while (queue.length) {
      const step = queue.shift();
      try {
        await step();
      } catch (e) {
        console.error(e); // one bad step must not stop the table from showing the next ones
      }
    }
    busy = false;
  }

  // The table far behind the server drops what is queued and draws the newest state instead.
  function drop() { queue.length = 0; }

  function wait(seconds) { return new Promise((done) => { setTimeout(done, seconds * 1000); }); }

  // A table created "fast" shows its cards' travel quicker too (the trick pauses are the reader's own).
  const PACE_MOTION = { fast: 0.4 };
  let scale = 1;
  function pace(name) { scale = PACE_MOTION[name] || 1; }

  // A page far behind the server catches up without travel (the trick pauses still hold).
  function duration(ms) { return reduced() || queue.length > 6 ? 0 : ms * scale; }

  function centre(rect) { return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 }; }

  // First (where it came from), last (where it is drawn now), invert, play back to its place.
  function travel(el, from, ms = 320) {
    const time = duration(ms);
    if (!el || !from || time <= 0 || typeof el.animate !== "function") return Promise.resolve();
    const a = centre(from);
    const b = centre(el.getBoundingClientRect());
    const anim = el.animate([{ transform: `translate(${a.x - b.x}px, ${a.y - b.y}px) scale(0.85)` },
      { transform: "none" }], { duration: time, easing: "cubic-bezier(.2,.7,.3,1)" });
    return anim.finished.catch(() => undefined);
  }

  // The finished trick goes to its winner's seat, then is taken away.
  function gather(els, to, ms = 380) {
    const time = duration(ms);
    if (!to || time <= 0) return Promise.resolve();
    const b = centre(to);
    return Promise.all(els.filter((el) => typeof el.animate === "function").map((el) => {
      const a = centre(el.getBoundingClientRect());
      return el.animate([{ transform: "none", opacity: 1 },
        { transform: `translate(${b.x - a.x}px, ${b.y - a.y}px) scale(0.4)`, opacity: 0.2 }],
      { duration: time, easing: "ease-in", fill: "forwards" }).finished.catch(() => undefined);
    }));
  }

  return { push, drop, wait, travel, gather, reduced, pace, get pending() { return queue.length; } };
})();

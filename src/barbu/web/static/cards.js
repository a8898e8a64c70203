// Card faces: a card drawn from the SVG deck of static/cards/cards.svg (symbols "QC", "TD", … and
// "back", built by scripts/build-card-sprite.py), whole or only its index corner. The drawing is
// hidden from screen readers: the element that holds it carries the card's name.
"use strict";

const Cards = (() => {
  // The sprite's stamped address, which the server writes on this script's tag: kept by the browser
  // (and the service worker) as one file. A page a service worker controls would otherwise fetch the
  // bare address, which must be asked again, anew for each card drawn (800 kB each time).
  const SPRITE = document.currentScript?.dataset.sprite || "/static/cards/cards.svg";
  const NS = "http://www.w3.org/2000/svg";
  const WHOLE = "0 0 225 314";
  const CORNER = "4 10 44 120"; // the rank over the suit, as a fanned hand shows them (style.css: 44 / 120)

  function art(id, corner) {
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("class", corner ? "face corner" : "face");
    svg.setAttribute("viewBox", corner ? CORNER : WHOLE);
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    const use = document.createElementNS(NS, "use");
    use.setAttribute("href", `${SPRITE}#${id}`);
    // The symbol's own size: the viewBox above then shows all of it or only its corner.
    use.setAttribute("width", "225");
    use.setAttribute("height", "314");
    svg.append(use);
    return svg;
  }

  // A card such as "QC": its whole face, or (corner) its index only, for the small cards of a row.
  function face(card, corner = false) { return art(card, corner); }

  // The other players' hands: a card back with the number of cards they hold on it.
  function backs(n) {
    const el = document.createElement("span");
    el.className = "backs";
    el.setAttribute("aria-hidden", "true");
    const count = document.createElement("b");
    count.textContent = String(n);
    el.append(art("back", false), count);
    return el;
  }

  return { face, backs, SPRITE };
})();

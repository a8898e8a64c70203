// The rematch at the end of a game: the offer, who has accepted, and the way to one's new seat.
"use strict";

const Rematch = (() => {
  let send = null;
  let offer = null; // the table's rematch as the server last said it
  let link = null; // this person's seat at the new game, once it is made (sent to this page only)
  let sawOpen = false; // this page saw the offer open: once made, it goes to the new seat by itself
  let table = null; // the table's public facts that came with the offer
  const ENDED = { decline: "rematch.declined", withdraw: "rematch.withdrawn" };
  const ENDED_BY_YOU = { decline: "rematch.you-declined", withdraw: "rematch.you-withdrew" };

  function endedText(ended) {
    return ended.seat === T.you ? t(ENDED_BY_YOU[ended.op]) : t(ENDED[ended.op], { name: seatName(ended.seat) });
  }

  function setup(sender) {
    send = sender;
    $("rematch-close").addEventListener("click", () => $("rematch-dialog").close());
  }

  function mine() { return offer !== null && T.you !== null && offer.people.includes(T.you); }

  function ask(op) {
    if (op === "offer" || op === "accept") sawOpen = true;
    send({ type: "rematch", op });
  }

  function button(key, op, primary = false) {
    return h("button", { type: "button", class: primary ? "primary" : "", "data-op": op, onclick: () => ask(op) }, t(key));
  }

  // Who answers, each marked accepted or awaited; the computers are said to accept at once.
  function answers() {
    const bots = table.seats.some((s) => s.kind === "bot" && !offer.people.includes(s.seat));
    return [h("ul", { class: "rematch-people", "aria-label": t("rematch.people") }, offer.people.map((s) => {
      const yes = offer.accepted.includes(s);
      return h("li", { class: yes ? "yes" : "wait" }, h("span", { "aria-hidden": "true" }, yes ? "✓ " : "… "),
        t(yes ? "rematch.accepted" : "rematch.waiting", { name: seatName(s) }));
    })), bots ? h("p", { class: "muted" }, t("rematch.computers")) : null];
  }

  // The rematch as one block: the offer and its answers, the button to make one, or the new seat.
  function block() {
    // A solo game's "rematch" is a new game, chosen in the solo lobby (solo.js).
    if (T.solo) return [h("a", { class: "button primary rematch-go", href: Solo.lobby() }, t("solo.start"))];
    if (link) {
      return [h("p", {}, t("rematch.made")), h("a", { class: "button primary rematch-go", href: link }, t("rematch.open-seat"))];
    }
    if (offer.made) return [h("p", {}, t("rematch.made-watch"))];
    const ended = offer.ended ? h("p", { class: "muted" }, endedText(offer.ended)) : null;
    if (!offer.open) return [ended, mine() ? button("rematch.offer", "offer", true) : null];
    const by = offer.by === T.you ? t("rematch.you-offered") : t("rematch.offered", { name: seatName(offer.by) });
    const acts = [];
    if (mine() && !offer.accepted.includes(T.you)) acts.push(button("rematch.accept", "accept", true), button("rematch.decline", "decline"));
    if (offer.by === T.you) acts.push(button("rematch.withdraw", "withdraw"));
    return [h("p", {}, by), ...answers(), acts.length ? h("div", { class: "row rematch-acts" }, acts) : null];
  }

  function draw() {
    const shown = offer !== null && table.over && !table.damaged && offer.people.length > 0;
    // A watcher with nothing to be told (no offer yet) gets no empty panel.
    const parts = shown ? block().filter(Boolean) : [];
    for (const id of ["rematch", "sheet-rematch", "end-rematch"]) {
      $(id).hidden = !parts.length;
      if (parts.length) fill($(id), block());
    }
    const dlg = $("rematch-dialog");
    if (shown && offer.open && mine()) {
      fill($("rematch-body"), block());
      for (const other of ["sheet-dialog", "end-dialog"]) if ($(other).open) $(other).close();
      if (!dlg.open) {
        dlg.showModal();
        const first = dlg.querySelector("#rematch-body button");
        if (first) first.focus();
      }
    } else if (dlg.open) {
      dlg.close();
    }
  }

  // Each state carries the rematch: a decline or a withdrawal is said to everyone once.
  function news(facts) {
    const next = facts.rematch;
    if (offer && offer.open && !next.open && next.ended && next.number === offer.number) {
      const text = endedText(next.ended);
      $("live").textContent = text;
      toast(text, "info");
    }
    if (next.open) sawOpen = true;
    offer = next;
    table = facts;
    draw();
  }

  // This person's own new seat: kept with the seats this browser holds, and gone to if the page saw
  // the offer being answered; coming back later, the page shows the link instead.
  function onLink(msg) {
    link = msg.link;
    const held = recall("barbu.mine") || {};
    held[msg.table] = msg.link.split("#t=")[1];
    remember("barbu.mine", held);
    if (sawOpen) {
      $("live").textContent = t("rematch.going");
      toast(t("rematch.going"), "info");
      setTimeout(() => location.assign(link), 800);
    }
    if (offer) draw();
  }

  return { setup, news, onLink };
})();

// The score keeper's own checks of a hand being entered, run before the server's and while it cannot
// be reached: everything asked is answered, and the counts add up as the engine's rules say
// (barbu.engine.tally.check). They answer as the server does (a code, its values, the field), so the
// page says them from the same catalogue entries; the server still checks everything when it stores
// the hand (who could hold which card, the doubles owed).
"use strict";

const ScoreCheck = (() => {
  const QUEENS = ["S", "H", "D", "C"];
  const HEARTS = 13;

  // As the server refuses (an engine code and its values), or {own: a catalogue key} for what only
  // the page asks.
  function refusal(code, args, field) { return { code, args: args || {}, field }; }
  function ask(own, args, field) { return { own, args: args || {}, field }; }

  // Each card a count names one by one: [field, the page's key for its picks, card id, taker].
  function namedCards(c, r) {
    const out = [];
    if (c.result.includes("queens")) for (const s of QUEENS) out.push(["queens", `queen-${s}`, `Q${s}`, r.queens[s]]);
    if (c.result.includes("king_of_hearts")) out.push(["king_of_hearts", "king", "KH", r.king_of_hearts]);
    if (c.result.includes("ace_of_hearts")) out.push(["ace_of_hearts", "ace", "AH", r.ace_of_hearts]);
    return out;
  }

  // A card left blank is a question not yet answered; "set aside" must be said (a tap), never assumed.
  function named(c, r, table) {
    const aside = [];
    for (const [field, key, card, seat] of namedCards(c, r)) {
      if (seat !== null && seat !== undefined) continue;
      const said = r.__aside && r.__aside[key];
      if (!said) {
        return table.setAside && (field !== "king_of_hearts" || c.id !== "king")
          ? ask("score.taken-or-aside", { card }, `result.${field}`)
          : refusal("tally:who-took", { card }, `result.${field}`);
      }
      aside.push([field, card]);
    }
    if (aside.length > table.setAside) {
      return refusal("tally:too-many-untaken", { n: table.setAside, cards: aside.map(a => a[1]) },
                     `result.${aside[aside.length - 1][0]}`);
    }
    return { aside: aside.map(a => a[1]) };
  }

  function sum(xs) { return xs.reduce((a, b) => a + b, 0); }

  function hearts(r, table, aside) {
    const total = sum(r.hearts);
    if (!table.setAside) {
      return total === HEARTS ? null : refusal("tally:sum", { variant: "hearts", n: HEARTS, total }, "result.hearts");
    }
    // The set-aside cards are not entered: the queens and K♥ said to be set aside are among them.
    const room = table.setAside - aside.filter(x => x[1] !== "H").length;
    const least = HEARTS - room, most = HEARTS - aside.filter(x => x[1] === "H").length;
    if (least <= total && total <= most) return null;
    return refusal("tally:sum", { variant: least === most ? "hearts-unseen-exact" : "hearts-unseen",
                                  n: least, most, total, aside: table.setAside }, "result.hearts");
  }

  function out(c, r, table) {
    if (!c.places) return null;  // a view kept from before the server said it: the server checks
    const n = table.players, least = c.places === n ? n - 1 : c.places;
    if (least <= r.out.length && r.out.length <= c.places) return null;
    return refusal("tally:out-length", { variant: c.places === n ? "all" : "first", least, n: r.out.length },
                   "result.out");
  }

  // The first thing not yet right in the draft of a hand, or null when it may be sent.
  // draft: the page's {contract, trump, start_rank, result}; c: the contract's frame entry;
  // table: {players, handSize, setAside (cards set aside per round), ruleset}.
  function problem(draft, c, table) {
    if (c.asks === "trump" && !draft.trump) return ask("score.choose-trump", {}, "trump");
    if (c.asks === "start_rank" && !draft.start_rank) return ask("score.choose-rank", {}, "start_rank");
    const r = draft.result, missing = f => refusal("tally:missing", { variant: f, contract: c.id, ruleset: table.ruleset },
                                                  `result.${f}`);
    if (c.result.includes("out")) return out(c, r, table);
    if (c.result.includes("tricks") && sum(r.tricks) !== table.handSize) {
      return refusal("tally:sum", { variant: "tricks", n: table.handSize, most: table.handSize, total: sum(r.tricks) },
                     "result.tricks");
    }
    if (c.result.includes("last_tricks") && r.last_tricks.some(s => s === null || s === undefined)) return missing("last_tricks");
    const cards = named(c, r, table);
    if (cards.code || cards.own) return cards;
    if (c.result.includes("hearts")) return hearts(r, table, cards.aside);
    return null;
  }

  return { problem };
})();

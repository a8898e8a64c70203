// The coach at the card table: the Hint button on your turn, the suggestion marked and said with its
// reasons, and the learner's warning before a costly choice (Settings: coachWarn). Only where the
// server says the coach may help (meta.coach: against computers, never rated); see docs/coach.md.
"use strict";

const Coach = (() => {
  let asked = null; // the question waiting for its answer: {key, action} (action: a warning's choice)
  let shown = ""; // the view the line said was said at: a new turn clears it

  function allowed() { return Boolean(T.meta && T.meta.coach && T.meta.coach.allowed); }

  // Your turn to decide at a table where the coach may help (a forced pass has nothing to weigh).
  function yourTurn(v) {
    return T.you !== null && live() && allowed() && v.current === T.you && v.legal.length > 0 &&
      T.meta.seats[T.you].kind === "human" && !forcedPass(v);
  }

  function render(v) {
    const bar = $("coach");
    bar.hidden = !yourTurn(v);
    if (shown !== viewKey(v)) { $("coach-said").textContent = ""; shown = ""; }
    $("coach-hint").disabled = !T.online;
  }

  function hint() {
    if (!allowed()) {
      $("coach-said").textContent = T.meta && T.meta.coach ? t(T.meta.coach.refusal) : "";
      return;
    }
    if (asked || !send({ type: "hint" })) return;
    asked = { key: viewKey(T.view), action: null };
    $("coach-said").textContent = t("table.coach.thinking");
    shown = asked.key;
  }

  // Before a choice is sent: with warnings on at a table where the coach helps, ask first (true: the
  // choice waits for the answer). Off, or where the coach is not allowed, nothing is asked.
  function intercept(action) {
    const level = warnLevel();
    if (level === "off" || !allowed() || !T.view || !yourTurn(T.view)) return false;
    if (asked) return asked.action !== null; // a second click waits for the warning the first asked
    if (!send({ type: "hint", intended: action, level })) return false;
    asked = { key: viewKey(T.view), action };
    $("coach-said").textContent = t("table.coach.thinking");
    shown = asked.key;
    return true;
  }

  function onHint(msg) {
    const q = asked;
    asked = null;
    if (!q || q.key !== viewKey(T.view)) return; // the table moved on: an answer to an older turn
    if (q.action !== null) {
      if (msg.warn) warnDialog(msg, q.action); else act(q.action, true);
      return;
    }
    say(msg);
  }

  // A refusal of the question (too many, not allowed): said; a choice waiting for it goes ahead.
  function onError(msg) {
    if (!asked) return false;
    const q = asked;
    asked = null;
    if (q.action !== null) { act(q.action, true); return true; }
    $("coach-said").textContent = I18N.error(msg);
    return true;
  }

  function say(msg) {
    const head = msg.forced || msg.against === null ? t("coach.hint.only", { choice: actionText(msg.choice) })
      : t("coach.hint", { choice: actionText(msg.choice), gain: signedText(msg.gain),
        alternative: actionText(msg.against) });
    $("coach-said").textContent = [head, ...reasons(msg)].join(" ");
    const marked = mark(msg.choice);
    // On a phone the choices may scroll in their box and the line falls under the hand: both shown.
    if (marked) marked.scrollIntoView({ block: "nearest" });
    $("coach-said").scrollIntoView({ block: "nearest" });
  }

  function reasons(msg) { return (msg.reasons || []).filter((r) => r.key !== "coach.value").map(reasonText); }

  // The suggested card or decision button gets a mark (and says so to a screen reader); the first.
  function mark(choice) {
    const sel = `#hand [data-card="${CSS.escape(choice)}"], #decision [data-action="${CSS.escape(choice)}"]`;
    const els = [...document.querySelectorAll(sel)];
    for (const el of els) {
      el.classList.add("suggested");
      el.setAttribute("aria-label", `${el.getAttribute("aria-label") || el.textContent}, ${t("table.coach.suggested")}`);
    }
    return els[0] || null;
  }

  function warnDialog(msg, action) {
    const text = t("coach.warn", { alternative: actionText(action), cost: signedText(msg.gain).replace(/^\+/, ""),
      choice: actionText(msg.choice) });
    $("coach-warning").textContent = [text, ...reasons(msg)].join(" ");
    const dialog = $("coach-dialog");
    $("coach-anyway").onclick = () => { dialog.close(); act(action, true); };
    $("coach-again").onclick = () => dialog.close();
    dialog.showModal();
    $("coach-again").focus();
  }

  const signedText = I18N.signed;

  // An action as the page says it: Q♠, a contract's name, a suit, a rank, a double.
  function actionText(a) {
    if (/^[2-9TJQKA][SHDC]$/.test(a)) return `${rankText(a[0])}${SUIT_SYMBOL[a[1]]}`;
    if (a === "pass") return t("coach.action.pass");
    const [word, rest] = a.split(" ");
    if (word === "trump") return t(`table.suit.${rest}`);
    if (word === "rank") return rankText(rest);
    if (word === "double" || word === "redouble") {
      if (rest === "none") return t("coach.action.no-double");
      return t(`coach.action.${word}`, { who: rest.split(",").map((s) => seatName(Number(s))).join(", ") });
    }
    return contractName(a);
  }

  // A reason in the page's words: seats by name, actions and contracts as the table says them.
  function reasonText(r) {
    return I18N.reason(r, { seat: seatName, action: actionText,
                            contract: (ruleset, id) => t(`contract.${ruleset || T.meta.ruleset}.${id}.name`) });
  }

  function setup() { $("coach-hint").addEventListener("click", hint); }

  // At a lesson's table (the tutorial's hand) the coach warns always, unless the learner chose a level.
  function warnLevel() {
    return T.meta && T.meta.lesson && !Settings.chosen("coachWarn") ? "always" : Settings.get("coachWarn");
  }

  return { render, intercept, onHint, onError, setup, allowed, warnLevel };
})();

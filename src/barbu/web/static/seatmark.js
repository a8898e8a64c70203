// The mark of a seat held by a profile: a small check mark linking to that player's ratings. Who
// holds a seat ("holder": profile, guest, computer, free) is the server's word, never guessed here
// from a name: a guest may not go by a profile's name, and this mark is what tells them apart.
"use strict";

const SeatMark = (() => {
  // A node to put after the name (null for any seat but a profile's).
  function mark(holder, name) {
    if (holder !== "profile") return null;
    const label = I18N.t("seat.profile", { name });
    const a = document.createElement("a");
    a.className = "profile-mark";
    a.href = `/player/${encodeURIComponent(name)}`;
    a.title = label;
    a.setAttribute("aria-label", label);
    a.textContent = "✓";
    return a;
  }

  // What a screen reader hears of a guest's seat beside its name ("" for the others).
  function spoken(holder) { return holder === "guest" ? I18N.t("seat.guest") : ""; }

  return { mark, spoken };
})();

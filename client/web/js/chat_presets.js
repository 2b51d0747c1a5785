// The table talk's presets (PROTOCOL.md "Table talk"): a chat message may be one of
// these keys instead of text, and every reader sees it in the reader's own language,
// whatever the writer's. The labels are messages of the page catalog in the context
// "chat".

import { tp } from "./i18n.js";

/** The presets' keys, in the order a player is offered them. */
export const PRESETS = ["hello", "good_luck", "well_played", "thanks", "good_game", "rematch?"];

/** What the preset `key` says in the reader's language, or null for a key this page
 * does not know. */
export function presetLabel(key) {
  switch (key) {
    case "hello":
      // Translators: a greeting a player sends the table with one click.
      return tp("chat", "Hello!");
    case "good_luck":
      // Translators: said to the other players as the game begins.
      return tp("chat", "Good luck!");
    case "well_played":
      // Translators: praise for an opponent's move or game.
      return tp("chat", "Well played!");
    case "thanks":
      return tp("chat", "Thanks!");
    case "good_game":
      // Translators: said to the other players when the game is over.
      return tp("chat", "Good game!");
    case "rematch?":
      // Translators: a question to the other players: shall we play again?
      return tp("chat", "Rematch?");
    default:
      return null;
  }
}

"""Sobek (Bruno Cathala, GameWorks 2010; Asmodee distribution): 2-4 players, three rounds.

Rules sources, and how sure each part is
========================================
Read: the seed ``shared/seeds/001_ec706646a8115532.txt`` (Board Game Arena help, French, 2015),
``shared/rules/sobek.md``, and through the ``search`` tool the openings of: the English rulebook
as OCR'd on scribd.com ("Sobek Game", 7 pages), ultraboardgames.com/sobek/game-rules.php and
yucata.de/en/Rules/Sobek (both the English rulebook text), the English BGA help
(gl.doc.boardgamearena.com Gamehelpsobek), reviews (gamersalliance.com, gameguythinks.com,
raccoon.com.br, reich-der-spiele.de, cuk.ch) and the designer's page (brunocathala.com/sobek).
The search tool only returns the first part of a page, and every copy stops before the rulebook's
last page, where character powers and event tokens are explained; no open-source implementation
is indexed (GitHub search for "sobek" finds only unrelated projects). So:

FROM SOURCES (implemented as stated)
- Turn: exactly one of take a card / play a character / play a set (seed). Take one of the first
  four market cards; the cards skipped, face-down characters included, go to your corruption pile
  (seed). Taking the last card refills the row with 9 from the deck; if the deck is empty the round
  ends (seed).
- Components (rulebook OCR, reviews): 54 goods cards = 6 ivory, 7 ebony, 7 marble, 9 cattle,
  10 fish, 5 amulets, and wheat (10: what the stated total of 54 leaves); 9 character cards, each
  also belonging to a goods family; 12 event tokens, 5 drawn face down each round; 9 goods cards
  have a green back and form the starting hands (2 each per round, the rest unused that round).
  Event tokens come in 9 kinds, 6 single and 3 that come twice (a review describing them).
  Goods cards come with a trade value (1 to 3 scarabs, rarer goods more; ivory 3) or without.
- Market: 9 cards, goods face up, characters face down (reviews). 45 market goods + 9 characters
  = 54 = six rows of nine per round. With two players a round has 5 deliveries of 9 (a review of
  the published game): 9 market cards sit out each round. Which 9 is not sourced: the last 9 of
  the shuffled market deck, so 9 at random, face down (``set_aside``), seen by nobody.
- Character: reveal it, discard it, apply its power; or use it in a set as its goods type,
  ignoring the power (seed).
- Sets: 3+ cards of one type; amulets are wild; characters count as their type; an existing set
  may be extended, but only with 3+ cards (seed). Score: scarabs x cards (seed examples).
- Event tokens: after laying a set or adding to one, look at all the tokens left and pick one
  (mandatory while any are left, raccoon review); a bonus helps you, a malus hits a player you
  name; a token may be picked just to waste it (seed).
- Round end: final sets may be laid horizontally and score only their scarabs; cards left in hand
  go to corruption (seed). The most corrupt player (most cards; tie: most scarabs on them; full
  tie: all of them) moves back one same guild symbol per 10 points scored this round (seed). The
  track's numbered squares are the multiples of 5 with four symbols between (review), and the
  seed's example (71 points on square 85 -> square 50) gives 5 squares per symbol: option
  ``squares_per_symbol``.
- Three rounds; the most advanced player wins; 100+ after round two (after corruption) wins at
  once (seed). After scoring, the player furthest behind names who begins the next round
  (``ChooseStarter``; any seat, themselves included); a tie for furthest behind is drawn by lot.
  Yucata: "If after the scoring of a round several players have the least total number of
  points, one of them will be selected at random for choosing the starting player of the next
  round." (Before 1.1.0 the player furthest behind simply began.)

GUESSES (marked in the code, and where players see them: :mod:`serai_sobek.house_rules` feeds
the rules summary and a "House rules" zone of every presentation, and tags guessed cards and
tokens "house rule"; change them when the rulebook's last page is found)
- Character powers and names beyond Scribe, Thief, Vizier, Queen, High Priest: see
  :mod:`serai_sobek.powers` for the table. Which goods family each character has: ``cards``.
- Event token effects, and which 3 of the 9 kinds come twice: see :mod:`serai_sobek.events`;
  the points the POINTS and FINE tokens move are option ``event_points`` (default 4).
  ``GameInfo.summary`` tells players that powers and event effects are house rules.
- Which cards carry scarabs and how many (ivory 3, ebony and marble 2, the rest 1; about 60% of
  each type); which 9 have the green back (scarab-less ones); amulets and characters carry none.
- A new set must contain a real goods card (option ``new_set_needs_goods``); goods of a type you
  already laid always extend that set (that extending takes an event token is sourced; option
  ``extension_takes_event`` turns it off as a house variant); final horizontal sets never take
  tokens and never extend.
- Final sets are laid seat by seat in turn order from the player after the one who emptied the
  market. Event points count as round points (and so for the corruption penalty). Nobody is
  corrupt when no one has a corruption card. The track never goes below 0. Ties at the end share
  the win. The first round is started by seat 0.
- Views: each seat sees its own corruption pile; whether everyone sees the pile sizes is option
  ``corruption_counts``: hidden by default, as the original rules have it (Yucata's note: the
  cards lie under the player's corruption tile); "public" is the variant. Goods skipped face up
  into a corruption pile are not shown to the others afterwards (they saw them go; a client may keep
  its own memory). "hidden" is a matter of display, not a secret, as at the table: every card
  that enters a pile is seen to go (the move's label says how many), and every other count is
  shown, so a seat that follows the match can work the sizes out (exactly, with two players).

``determinize`` is offered: it deals what a view hides at random (with hidden corruption counts,
the other piles share what is left at random).

Moves name cards by face (:class:`~serai_sobek.cards.Face`), so identical cards give one move.
Example::

    game = SobekGame()
    state = game.setup(3, seed=1, options={})
    seat = game.to_act(state)[0]
    state = game.apply(state, seat, game.legal_moves(state, seat)[0])  # take the first card
"""

from serai_sobek.game import SobekGame

__all__ = ["SobekGame"]

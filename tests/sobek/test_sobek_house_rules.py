"""Sobek's guesses are told to players where they read the rules and see the table, and the
corruption counts follow the original rules by default (hidden under the corruption tile)."""

from serai_sobek.cards import Character, Goods
from serai_sobek.house_rules import HOUSE_RULES, TAG
from serai_sobek.state import Phase
from test_sobek_support import GAME, build, char, goods

GUESSES = {
    # each guess the sources leave open -> words that must be in the rules summary
    "the four characters not in the sources": "Courtesan, Architect, Princess and Boatman",
    "character powers": "every character's power",
    "each character's goods family": "which goods family each character belongs to",
    "non-ivory scarab values": "scarabs on goods other than ivory",
    "which 9 cards have green backs": "which 9 goods cards have the green",
    "the 2-player set-aside": "with two players, the 9 market cards that sit out",
    "event token effects": "every event token's effect",
    "which 3 token kinds come twice": "which 3 kinds come twice",
    "the order of final sets": "final sets are laid seat by seat",
    "seat 0 starting round 1": "seat 0 starts the first round",
    "the track floor at 0": "below 0 on the score track",
    "shared wins": "tied at the end share the win",
}


def presentation(state, seat):
    message = GAME.view_message.FromString(GAME.view_bytes(GAME.view(state, seat)))
    return GAME.present(message)


def zone(shown, zone_id):
    return next(z for z in shown.zones if z.id == zone_id)


def test_the_rules_summary_names_every_guess_as_a_house_rule():
    """ListGames, `serai games` and the web lobby show the summary."""
    summary = GAME.info.summary
    assert "House rules, guessed until the publisher's text is found" in summary
    for guess, words in GUESSES.items():
        assert words in summary, guess


def test_every_presentation_lists_the_house_rules():
    state = build(players=2)
    for seat in (0, 1, None):
        rules = zone(presentation(state, seat), "house_rules")
        assert "guesses" in rules.title
        texts = " ".join(item.value for item in rules.items)
        for guess, words in GUESSES.items():
            assert words in texts, (seat, guess)
    three = zone(presentation(build(players=3), 0), "house_rules")
    assert "two players" not in [item.label for item in three.items], "said where it applies"
    assert len(HOUSE_RULES) == len({rule.topic for rule in HOUSE_RULES})


def test_guessed_cards_and_tokens_carry_the_tag_where_they_show():
    """Characters (power, family; the name of a stand-in), scarabs on goods other than ivory
    and event tokens are tagged; ivory's 3 scarabs and a card without scarabs are sourced."""
    state = build(
        players=2,
        hands={
            0: [
                char(Character.SCRIBE),
                char(Character.BOATMAN),
                goods(Goods.FISH, 1),
                goods(Goods.IVORY, 3),
                goods(Goods.WHEAT, 0),
            ]
        },
        row=[goods(Goods.EBONY, 2), goods(Goods.IVORY, 3)],
    )
    shown = presentation(state, 0)
    hand = {item.label: item.value for item in zone(shown, "hand").items}
    assert hand["scribe (marble)"] == f"{TAG}: power, goods family"
    assert hand["boatman (wheat)"] == f"{TAG}: power, goods family, name"
    assert hand["fish (1 scarab)"] == f"{TAG}: scarabs"
    assert hand["ivory (3 scarabs)"] == "" and hand["wheat"] == ""
    market = [item.value for item in zone(shown, "market").items]
    assert market == [f"position 1 · {TAG}: scarabs", "position 2"]


def test_corruption_counts_are_hidden_by_default_as_in_the_original_rules():
    """Yucata: the original rules keep the cards under the player's corruption tile; showing
    every pile's count is the option 'public'."""
    (spec,) = [option for option in GAME.info.options if option.name == "corruption_counts"]
    assert spec.default == "hidden"
    state = build(corruption={1: [goods(Goods.EBONY)]})
    assert not GAME.view_to_proto(GAME.view(state, 0)).seats[1].HasField("corruption_count")
    assert GAME.view(state, 1).seats[1].corruption_count == 1
    public = build(corruption={1: [goods(Goods.EBONY)]}, options={"corruption_counts": "public"})
    assert GAME.view_to_proto(GAME.view(public, 0)).seats[1].corruption_count == 1


def test_a_setup_without_options_hides_the_counts():
    state = GAME.setup(3, seed=2, options={})
    assert state.option("corruption_counts") == "hidden" and state.phase is Phase.PLAY

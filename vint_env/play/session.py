"""A person plays deals or a rubber against bots at the terminal (`vint-play`).

One seat is the person's; in a partnership game (Vint, Whist) a partner bot
sits opposite and opponent bots at the sides, in Solo Whist three opponent
bots.  In two-player Vint the person is one of the two players (``player_0``
or ``player_1``) and also plays the dummy he controls, against one bot.  The person types calls and cards by name (see :mod:`.actions`) or a
command (``help``, ``hint``, ``hand``, ``legal``, ``quit``); the bots' actions are
printed as they happen, and each deal ends with all four hands as dealt, the
contract, the tricks and the env's scoring breakdown (and in a rubber the
score sheet).  ``quit``, end of input (Ctrl-D) and Ctrl-C all end the session
cleanly.
"""

from __future__ import annotations

import textwrap
from typing import Callable

from ..agents.base import Agent
from ..cards import SEAT_LETTERS, hand_to_text
from .. import games
from ..games import TWO_PLAYER
from ..evaluation.replay import DealReplay
from ..points import format_points
from ..seeds import check_seed
from ..inputs import excerpt
from .actions import action_codec
from .table import Seating, TableDriver

COMMANDS = ("help", "hint", "hand", "legal", "quit")

def help_text(game: games.Game | str) -> str:
    """What ``help`` prints at the prompt (``game``: its record or its name)."""
    return f"""Type a call or a card by name, or a command.
  calls:    {games.get(game).calls_help}
  cards:    suit letter S C D H and rank 2-10, J, Q, K, A: SA, h10 (or hT), c2  (any case)
  commands: hint   what the rule bot would do in your place
            hand   show the table again        legal  list your legal actions
            help   this text                   quit   leave (so do Ctrl-D and Ctrl-C)"""


class Quit(Exception):
    """The person asked to leave (``quit``, end of input)."""


def seat_number(text: str) -> int:
    """``'S'`` / ``'south'`` / ``'2'`` -> 2."""
    t = str(text).strip().upper()
    names = {"NORTH": 0, "EAST": 1, "SOUTH": 2, "WEST": 3}
    if t in names:
        return names[t]
    if len(t) == 1 and t in SEAT_LETTERS:
        return SEAT_LETTERS.index(t)
    if t in ("0", "1", "2", "3"):
        return int(t)
    raise ValueError(f"seat must be N, E, S or W (or 0-3), got {excerpt(text)}")


class PlaySession:
    """The loop of one `vint-play` session; input and output go through ``input_fn`` / ``print_fn``."""

    def __init__(self, game: games.Game | str, seating: Seating, episode: str = "deal", deals: int = 1, seed: int = 0,
                 hint_agent: Agent | None = None, input_fn: Callable[[str], str] = input,
                 print_fn: Callable[..., None] = print, env_options: dict | None = None):
        self.spec = games.get(game)         # the record, passed on to the table
        self.game = self.spec.name
        self.seating = seating
        self.episode = episode
        self.deals = deals
        self.seed = check_seed(seed, allow_none=False)
        self.two_player = self.spec.format == TWO_PLAYER
        self.driver = TableDriver(self.spec, seating, episode=episode, seed=seed, env_options=env_options,
                                  hint_agent=hint_agent, on_action=self.report_action,
                                  on_deal_start=self.announce_deal, on_deal_end=self.show_deal_end)
        self.env, self.raw = self.driver.env, self.driver.raw
        self.raw.render_mode = "ansi"
        self.hint_agent = hint_agent
        self.input = input_fn
        self.print = print_fn
        self.text, self.parse = action_codec(self.spec)
        self.total = 0.0            # the person's points over the session

    # ------------------------------------------------------------------ helpers
    def name(self, index: int) -> str:
        """An agent's short name: its seat letter, or in two-player Vint ``player_i``."""
        return f"player_{index}" if self.two_player else SEAT_LETTERS[index]

    def seat_name(self, index: int) -> str:
        """``'E (rule)'``, ``'player_1 (rule)'``: an agent (by its index) and who plays it."""
        return f"{self.name(index)} ({self.seating.labels.get(index, '?')})"

    def table_seat_name(self, seat: int, deal) -> str:
        """A seat of the table at the end of a deal: in two-player Vint with its player (or pile)."""
        if not self.two_player:
            return self.seat_name(seat)
        ctrl = deal.controllers[seat]
        if ctrl < 0:
            return f"{SEAT_LETTERS[seat]} (pile)" if deal.way in (2, 3) else f"{SEAT_LETTERS[seat]} (dummy)"
        whose = self.name(ctrl) if seat == deal.player_seats[ctrl] else f"{self.name(ctrl)}'s dummy"
        return f"{SEAT_LETTERS[seat]} ({whose}, {self.seating.labels.get(ctrl, '?')})"

    def action_name(self, action: int) -> str:
        try:
            return self.text(action)
        except ValueError:
            return str(action)

    def legal_text(self, legal: list[int], lead: str = "") -> str:
        """``lead`` and the legal actions' names, wrapped to the terminal's usual width."""
        names = [self.action_name(a) for a in legal]
        text = lead + (", " if any(" " in n for n in names) else " ").join(names)
        return textwrap.fill(text, width=78, subsequent_indent="    ", break_on_hyphens=False)

    def why_illegal(self, action: int) -> str:
        """Why the person may not take ``action`` now (a card not in the hand, a suit to follow ...)."""
        play = getattr(self.raw.deal, "play", None)
        playing = play is not None and not play.is_over      # the person's turn (or their dummy's)
        if playing:
            if action >= 52:        # card ids are 0..51 in every game; calls come after
                return "the cards are being played: play a card"
            why = getattr(play, "why_illegal", None)
            return (why(action) if why is not None else None) or "not one of your legal cards"
        if action < 52:
            return "it is not yet time to play cards: make a call"
        return "that call is not open to you now"

    def show_table(self) -> None:
        self.print(self.raw.render())

    # ------------------------------------------------------------------ the session
    def run(self) -> int:
        """Play the deals (or the rubber); 0 when finished, 0 too when the person quits."""
        try:
            if self.episode == "rubber":
                self.play_episode(1)
            else:
                for number in range(1, self.deals + 1):
                    self.play_episode(number)
            if self.episode == "deal" and self.deals > 1:
                self.print(f"\nYour total over {self.deals} deals: {format_points(self.total)} points.")
        except Quit:
            self.print("\nBye.")
        return 0

    def play_episode(self, number: int) -> None:
        self.shown_deals = 0
        self.print(f"\n=== {self.spec.name}, " + (f"deal {number} of {self.deals}" if self.episode == "deal"
                                                   else "a rubber") + f" (seed {self.seed}) ===")
        driver = self.driver
        driver.start(number)
        while not driver.over:
            if not driver.human_to_move:
                driver.advance()
                continue
            # (the shadow rule bot has seen this turn of the person's seat: driver.suggestion)
            driver.play(self.ask(driver.observation(), driver.suggestion))

    def announce_deal(self, deal) -> None:
        human = self.seating.human
        you = "" if deal.dealer == human else f" You are {self.name(human)}."     # the dealer's "S (you)" says it
        self.print(f"\nDealer {self.seat_name(deal.dealer)}.{you}"
                   + (f" Turned card: {self.action_name(deal.turned_card)}."
                      if getattr(deal, "turned_card", None) is not None else ""))

    def ask(self, observation, suggestion: int | None) -> int:
        legal = [int(a) for a in observation["action_mask"].nonzero()[0]]
        self.print("")
        self.show_table()
        self.print(self.legal_text(legal, "Your legal actions: "))
        prompt = f"{self.name(self.seating.human)} (you)> "
        seat = self.raw.deal.current_player
        if self.two_player and seat != self.raw.deal.player_seats[self.seating.human]:
            prompt = f"{self.name(self.seating.human)} (you) for {SEAT_LETTERS[seat]}, your dummy> "
        while True:
            try:
                typed = self.input(prompt)
            except EOFError:
                raise Quit from None
            word = typed.strip().lower()
            if word in ("quit", "exit", "q"):
                raise Quit
            if word in ("help", "?"):
                self.print(help_text(self.spec))
                continue
            if word == "hint":
                if suggestion is None:
                    self.print("hint: none (started with --no-hint)")
                else:
                    self.print(f"hint: the rule bot would play {self.action_name(suggestion)}")
                continue
            if word in ("hand", "table", "show"):
                self.show_table()
                continue
            if word == "legal":
                self.print(self.legal_text(legal, "legal: "))
                continue
            if not word:
                continue
            try:
                action = int(self.parse(typed.strip()))
            except (ValueError, KeyError):
                self.print(f"not understood: {typed.strip()!r} names no call or card (type help for the syntax)")
                self.print(self.legal_text(legal, "legal now: "))
                continue
            if action not in legal:
                self.print(f"{self.action_name(action)} is not legal now: {self.why_illegal(action)}")
                self.print(self.legal_text(legal, "legal now: "))
                continue
            return action

    def report_action(self, seat: int, action: int, deal, tricks_before: int, table_seat: int | None = None) -> None:
        own = deal.player_seats[seat] if self.two_player else seat
        played_for = f" for {SEAT_LETTERS[table_seat]}" if table_seat is not None and table_seat != own else ""
        self.print(f"  {self.seat_name(seat)}{played_for}: {self.action_name(action)}")
        play = getattr(deal, "play", None)
        winners = getattr(play, "trick_winners", None) if play is not None else None
        if winners and len(winners) > tricks_before:
            won = [0, 0, 0, 0]
            for w in winners:
                won[w] += 1
            if self.two_player:
                a, b = deal.player_tricks()
                count = f"player_0 {a}, player_1 {b}"
                winner = SEAT_LETTERS[winners[-1]]
                self.print(f"  -- trick {len(winners)} won by {winner} (player_{deal.controllers[winners[-1]]}); "
                           f"tricks: {count}")
                return
            if self.spec.partnership:
                count = f"N/S {won[0] + won[2]}, E/W {won[1] + won[3]}"
            else:
                count = ", ".join(f"{SEAT_LETTERS[s]} {won[s]}" for s in range(4))
            self.print(f"  -- trick {len(winners)} won by {self.seat_name(winners[-1])}; tricks: {count}")

    # ------------------------------------------------------------------ end of a deal
    def show_deal_end(self, record: DealReplay) -> None:
        self.shown_deals += 1
        number = self.shown_deals
        me = self.seating.human
        info = record.info.get("deal", {})
        lines = ["", f"--- deal over ({'deal ' + str(number) + ' of the rubber' if self.episode == 'rubber' else ''})"
                 .replace(" ()", "")]
        lines.append("Hands as dealt:")
        deal = self.raw.deal if self.raw.deal is not None and self.raw.deal.is_over else None
        width = 30 if self.two_player else 24
        for seat in range(4):
            name = self.table_seat_name(seat, deal) if deal is not None else self.seat_name(seat)
            lines.append(f"  {name:<{width}} {hand_text(record.hands[seat])}")
        if self.two_player and deal is not None and deal.way == 5:
            lines.append(f"  {'widow':<{width}} {hand_text(deal.widow)}")
        lines += describe_deal_info(info, two_player=self.two_player)
        if record.points is not None:
            mine = record.points[me]
            self.total += mine
            lines.append("Points this deal: " + ", ".join(f"{self.name(s)} {format_points(p)}"
                                                          for s, p in enumerate(record.points))
                         + f"   (yours {format_points(mine)})")
        if "rubber" in record.info:
            lines += describe_rubber(record.info["rubber"], me, two_player=self.two_player)
        self.print("\n".join(lines))


def hand_text(mask: int) -> str:
    """``♠ A K 7  ♣ 9 8 6 5 4 3 2  ♦ -  ♥ Q 10``: the suits in the order the table shows them during play."""
    return hand_to_text(mask)


def _value(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "-"
    if isinstance(v, (list, tuple)):
        return " ".join(_value(x) for x in v)
    return str(v)


def describe_deal_info(info: dict, two_player: bool = False) -> list[str]:
    """The env's deal info as lines: contract, declarer, tricks, then the score items per side.
    ``two_player``: the dealer, declarer, auction and tricks are the two players' (two-player Vint)."""
    lines = []
    seat_keys = {"declarer_seat"} if two_player else {"declarer", "partner", "dealer"}
    sides = ("player_0", "player_1") if two_player else ("N/S", "E/W")
    for key, value in info.items():
        if key in ("scores", "with_premiums", "auction", "payments"):
            continue
        if key in seat_keys and isinstance(value, int):
            value = SEAT_LETTERS[value]
        elif two_player and key in ("declarer", "dealer") and isinstance(value, int):
            value = f"player_{value}"
        if key in ("tricks", "exchanged") and isinstance(value, (list, tuple)) and len(value) == 2:
            value = f"{sides[0]} {value[0]}, {sides[1]} {value[1]}"
        lines.append(f"  {key.replace('_', ' ')}: {_value(value)}")
    if "auction" in info:
        name = (lambda s: f"player_{s}") if two_player else (lambda s: SEAT_LETTERS[s])
        lines.append("  auction: " + " ".join(f"{name(s)}:{a}" for s, a in info["auction"]))
    for key in ("scores", "with_premiums"):
        if key in info:
            lines += score_table(info[key], "score" if key == "scores" else "with the rubber's premiums")
    if "payments" in info:
        lines.append("  payments (quarter points): "
                     + ", ".join(f"{SEAT_LETTERS[s]} {p:+d}" for s, p in enumerate(info["payments"])))
    return lines


def score_table(sides: dict, title: str) -> list[str]:
    """``{"NS": {item: points}, "EW": {...}}`` as a small table, items as rows."""
    names = list(sides)
    items = []
    for side in names:
        for item in sides[side]:
            if item not in items:
                items.append(item)
    width = max([len(i) for i in items] + [5])
    out = [f"  {title}:", "    " + " " * width + "".join(f"{n:>9}" for n in names)]
    for item in items:
        out.append("    " + f"{item:<{width}}" + "".join(f"{_value(sides[n].get(item, 0)):>9}" for n in names))
    return out


def describe_rubber(rubber: dict, me: int, two_player: bool = False) -> list[str]:
    """The rubber's score sheet after a deal."""
    names = ("player_0", "player_1") if two_player else ("N/S", "E/W")
    side = f"player_{me}" if two_player else ("NS" if me % 2 == 0 else "EW")
    lines = [("Score sheet of the rubber (you: " if two_player else "Score sheet of the rubber (your side: ")
             + side + "):",
             f"  games won: {names[0]} {rubber['games_won'][0]}, {names[1]} {rubber['games_won'][1]}; "
             f"below the line this game: {names[0]} {rubber['below_line'][0]}, {names[1]} {rubber['below_line'][1]}"]
    if rubber.get("totals"):
        lines += score_table(rubber["totals"], "totals")
    if rubber.get("marks"):
        lines.append(f"  marks: {_value(rubber['marks'])}")
    if rubber.get("over"):
        lines.append(f"  rubber over: won by {rubber.get('winner')}; result {_value(rubber.get('result'))}")
    return lines

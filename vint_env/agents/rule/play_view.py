"""What a rule bot knows at its turn in the play: :class:`PlayView`.

Built by each game's rule bot from what its game's decoder says it knows
(:mod:`vint_env.games.knowledge`: its hand, the trick, the cards played, the voids
shown; never the env), plus a :class:`TrickMemory` of the tricks it has seen (who
led what, who discarded what first: "remember what has been played", the Whist book
and the Ukrainian rules).  Seats are relative to the bot: 0 me, 1 left, 2 across, 3 right.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from ...cards import NO_TRUMP, SUIT_MASK, hand_cards
from ...games.knowledge import Knowledge
from ..base import Agent
from ...rules.tricks import beats


class Book(str, Enum):
    """Whose play advice a rule bot follows (docs/play_advice.md): the Vint book's (four-player and
    two-player Vint), the Whist book's, or Solo Whist's (the Whist book's, with its own goals).
    A string, so ``PlayView(game="whist")`` still reads."""

    VINT = "vint"
    WHIST = "whist"
    SOLO_WHIST = "solo_whist"


def card_suit(card: int) -> int:
    return card // 13


def card_rank(card: int) -> int:
    return card % 13


@dataclass
class PlayView:
    """The position as the bot sees it.

    ``trick`` lists (relative seat, card) in play order; ``played`` is the
    mask of every card already played (this trick included); ``partners``
    are the relative seats on the bot's side; ``declarer`` the relative seat
    of the declarer (``None`` in Whist); ``named`` the suits each relative
    seat named in the auction; ``goal`` is ``"tricks"`` or, in Solo Whist,
    ``"misere"`` (the lone declarer avoiding tricks) or
    ``"misere_defence"``.
    """

    hand: int
    trump: int
    trick: list[tuple[int, int]]
    played: int
    partners: frozenset[int]
    declarer: int | None = None
    level: int = 0
    game: Book = Book.VINT            # whose play advice applies (not the game played: vint2p plays by the Vint book)
    goal: str = "tricks"
    tricks_played: int = 0
    named: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])
    voids: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])
    first_discard: list[int | None] = field(default_factory=lambda: [None] * 4)
    partner_won_leads: set[int] = field(default_factory=set)

    # ------------------------------------------------------------ seats
    @property
    def opponents(self) -> frozenset[int]:
        return frozenset({1, 2, 3}) - self.partners

    @property
    def declaring(self) -> bool:
        """True when the bot's side declared the contract."""
        return self.declarer is not None and (self.declarer == 0 or self.declarer in self.partners)

    @property
    def position(self) -> int:
        """0 leading, 1 second hand, 2 third hand, 3 fourth hand."""
        return len(self.trick)

    def seats_after_me(self) -> list[int]:
        """Relative seats still to play to this trick after the bot."""
        n = 3 - len(self.trick)
        return [1 + i for i in range(n)]

    # ------------------------------------------------------------ cards
    def cards(self, suit: int) -> list[int]:
        """The bot's cards of a suit, highest first."""
        return sorted(hand_cards(self.hand & SUIT_MASK[suit]), reverse=True)

    def length(self, suit: int) -> int:
        return (self.hand & SUIT_MASK[suit]).bit_count()

    def outstanding(self, suit: int) -> int:
        """Mask of the cards of a suit that other players still hold."""
        return SUIT_MASK[suit] & ~self.hand & ~self.played

    def is_master(self, card: int) -> bool:
        """No card higher in its suit is still held by another player."""
        higher = SUIT_MASK[card // 13] & ~((1 << (card + 1)) - 1)
        return not (self.outstanding(card // 13) & higher)

    def masters_run(self, suit: int) -> int:
        """How many of the bot's top cards in a suit are sure winners in turn."""
        n = 0
        out = self.outstanding(suit)
        for c in self.cards(suit):
            higher = SUIT_MASK[suit] & ~((1 << (c + 1)) - 1)
            if out & higher:
                break
            n += 1
        return n

    def effective_ranks(self, suit: int) -> list[int]:
        """The bot's ranks in a suit after promotion by played cards
        (K-Q-x with the ace gone reads as A-K-x), highest first."""
        live = SUIT_MASK[suit] & ~self.played
        out = []
        for c in self.cards(suit):
            above = live & ~((1 << (c + 1)) - 1)
            out.append(12 - above.bit_count())
        return out

    def lowest_equivalent(self, card: int) -> int:
        """The lowest of the bot's cards touching ``card`` (no other player's
        live card between them): equal in trick-taking power."""
        suit = card // 13
        out = self.outstanding(suit)
        best = card
        for c in range(card - 1, suit * 13 - 1, -1):
            if self.hand >> c & 1:
                best = c
            elif out >> c & 1:
                break
        return best

    # ------------------------------------------------------------ the trick
    @property
    def led_suit(self) -> int:
        return self.trick[0][1] // 13 if self.trick else -1

    def winning(self) -> tuple[int, int]:
        """(relative seat, card) currently winning the trick."""
        seat, best = self.trick[0]
        for s, c in self.trick[1:]:
            if beats(c, best, self.trump):
                seat, best = s, c
        return seat, best

    def partner_winning(self) -> bool:
        return bool(self.trick) and self.winning()[0] in self.partners

    def sure_to_stand(self, card: int) -> bool:
        """True if ``card`` (now winning) cannot be beaten by an opponent
        still to play: it is the master of its suit (and, in a trump contract,
        no opponent still to play is known to be able to ruff a plain suit)."""
        opponents_after = [s for s in self.seats_after_me() if s in self.opponents]
        if not opponents_after:
            return True
        suit = card // 13
        if not self.is_master(card):
            return False
        if self.trump != NO_TRUMP and suit != self.trump:
            for s in opponents_after:
                if suit in self.voids[s] and self.trump not in self.voids[s] and self.outstanding(self.trump):
                    return False
        return True

    def can_win_with(self, cards: list[int]) -> list[int]:
        """Of ``cards``, those that beat the trick's current best card, lowest first."""
        _, best = self.winning()
        return sorted(c for c in cards if beats(c, best, self.trump))

    def opponents_void_in(self, suit: int) -> bool:
        return all(suit in self.voids[s] for s in self.opponents)

    def opponent_may_ruff(self, suit: int) -> bool:
        """An opponent is known void in ``suit`` and may hold trumps."""
        if self.trump == NO_TRUMP or suit == self.trump or not self.outstanding(self.trump):
            return False
        return any(suit in self.voids[s] and self.trump not in self.voids[s] for s in self.opponents)

    def opponents_may_hold_trumps(self) -> bool:
        if self.trump == NO_TRUMP or not self.outstanding(self.trump):
            return False
        return not all(self.trump in self.voids[s] for s in self.opponents)


class TrickMemory:
    """What a bot remembers of the tricks beyond its observation: first discards and partner's leads.

    (The voids shown are in the observation: the decoder's ``Knowledge.voids``.)  Fed at each of the
    bot's turns with the trick in progress and the last completed trick (both in its observation);
    between two of a player's turns at most one trick completes (exactly one in the four-player
    games; a two-player Vint player acting for two hands may see none), so every trick is seen
    whole.  Tricks have four cards, or two (two-player Vint's ways 2 and 3: ``last_trick`` then holds
    two seats).
    """

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.first_discard: list[int | None] = [None] * 4
        self.leads: list[tuple[int, int, int]] = []   # (leader, suit, winner) of completed tricks
        self._pending_leader: int | None = None
        self._tricks_seen = 0

    def see_trick(self, plays: list[tuple[int, int]], trump: int) -> None:
        """Record the first discards from plays (relative seat, card) of one trick."""
        if not plays:
            return
        led = plays[0][1] // 13
        for seat, card in plays[1:]:
            if card // 13 != led and card // 13 != trump and self.first_discard[seat] is None:
                self.first_discard[seat] = card // 13

    def update(self, trick: list[tuple[int, int]], last_trick: dict[int, int], last_winner: int,
               tricks_played: int, trump: int) -> None:
        """Called at each turn in the play.

        ``last_trick`` maps relative seat -> card of the last completed
        trick; ``last_winner`` is the seat that won it (the current leader,
        who leads the trick in progress).
        """
        if tricks_played == self._tricks_seen + 1 and last_trick and self._pending_leader is not None:
            leader = self._pending_leader
            plays = [((leader + i) % 4, last_trick[(leader + i) % 4]) for i in range(4)
                     if (leader + i) % 4 in last_trick]
            if len(plays) == len(last_trick):
                self.see_trick(plays, trump)
                self.leads.append((leader, plays[0][1] // 13, last_winner))
        self._tricks_seen = tricks_played
        self.see_trick(trick, trump)
        self._pending_leader = trick[0][0] if trick else last_winner

    def partner_won_leads(self, partners) -> set[int]:
        """Suits a partner led and won a trick with (Whist book: return partner's suit)."""
        return {suit for leader, suit, winner in self.leads if leader in partners and winner in partners}


def trick_voids(trick: list[tuple[int, int]]) -> list[set[int]]:
    """The voids shown in one trick: the suit led, for each relative seat that did not follow it."""
    voids: list[set[int]] = [set(), set(), set(), set()]
    for seat, card in trick[1:]:
        if card // 13 != trick[0][1] // 13:
            voids[seat].add(trick[0][1] // 13)
    return voids


class SeatMemories:
    """A bot's :class:`TrickMemory` per agent it acts for, so that one instance is safe at every seat.

    A memory is seat-relative (the first discards of "my left", "my partner"), so two seats must never share one:
    ``of(agent)`` gives the agent's own (``None``, when ``act`` is not told the agent, is one more
    key); ``reset()`` forgets them all (at the start of each episode).
    """

    def __init__(self):
        self._by_agent: dict = {}

    def of(self, agent) -> TrickMemory:
        memory = self._by_agent.get(agent)
        if memory is None:
            memory = self._by_agent[agent] = TrickMemory()
        return memory

    def reset(self) -> None:
        self._by_agent.clear()


class RememberingAgent(Agent):
    """An agent with a memory of the tricks for each agent it acts for (:class:`SeatMemories`), forgotten at
    ``reset``: ``self.memory`` is that of the agent acting now, once ``act`` has called ``remember(agent)``."""

    def __init__(self, seed: int | None = None):
        self.memories = SeatMemories()      # one per agent: the same bot may play several seats
        self.memory = self.memories.of(None)

    def reset(self, seed: int | None = None) -> None:
        self.memories.reset()
        self.memory = self.memories.of(None)

    def remember(self, agent) -> None:
        self.memory = self.memories.of(agent)


def observed_play(k: Knowledge, memory: TrickMemory) -> dict:
    """The trick-play part of :class:`PlayView` from what the player knows (``k``, the game's decoder),
    with ``memory`` brought up to date: the keyword arguments ``hand``, ``trump``, ``trick``, ``played``,
    ``tricks_played``, ``voids`` and ``first_discard``."""
    memory.update(k.trick, k.last_trick, k.leader, k.tricks_played, k.trump)
    return {"hand": k.hand, "trump": k.trump, "trick": k.trick, "played": k.played,
            "tricks_played": k.tricks_played, "voids": k.voids, "first_discard": memory.first_discard}

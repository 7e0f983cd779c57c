"""Pure game logic: deal, auction, play and scoring. No RL, no numpy."""

from .rubber import DealRecord, Rubber, SideScore, side_of
from .tricks import NO_TRUMP, IllegalActionError, TrickPlay, trick_winner
from .vint import (BID_BASE, NUM_ACTIONS as VINT_NUM_ACTIONS, PASS, Contract, VintDeal,
                   VintRubber, action_contract, action_text, bid_action, parse_action)
from .vint_scoring import NT, score_contract, score_passout_play

__all__ = [
    "DealRecord", "Rubber", "SideScore", "side_of", "NO_TRUMP", "IllegalActionError",
    "TrickPlay", "trick_winner", "BID_BASE", "VINT_NUM_ACTIONS", "PASS", "Contract",
    "VintDeal", "VintRubber", "action_contract", "action_text", "bid_action", "parse_action",
    "NT", "score_contract", "score_passout_play",
]

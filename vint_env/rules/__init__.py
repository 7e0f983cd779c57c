"""Pure game logic: deal, auction, play and scoring. No RL, no numpy."""

from ..cards import NO_TRUMP
from .phase import Phase
from .rubber import DealRecord, Rubber, SideScore, side_of
from .tricks import IllegalActionError, MalformedActionError, TrickPlay, check_action, trick_winner
from .vint import (BID_BASE, NUM_ACTIONS as VINT_NUM_ACTIONS, PASS, Contract, VintDeal,
                   VintRubber, action_contract, action_text, bid_action, parse_action)
from .vint_scoring import NT, score_contract, score_passout_play
from .whist import NUM_ACTIONS as WHIST_NUM_ACTIONS, WhistDeal, WhistRubber
from .whist_scoring import score_whist
from .solo_whist import SoloWhistDeal
from .solo_whist_calls import NUM_ACTIONS as SOLO_WHIST_NUM_ACTIONS
from .solo_whist_payments import payments as solo_whist_payments

__all__ = [
    "Phase", "DealRecord", "Rubber", "SideScore", "side_of", "NO_TRUMP", "IllegalActionError", "MalformedActionError", "check_action",
    "TrickPlay", "trick_winner", "BID_BASE", "VINT_NUM_ACTIONS", "PASS", "Contract",
    "VintDeal", "VintRubber", "action_contract", "action_text", "bid_action", "parse_action",
    "NT", "score_contract", "score_passout_play",
    "WHIST_NUM_ACTIONS", "WhistDeal", "WhistRubber", "score_whist",
    "SOLO_WHIST_NUM_ACTIONS", "SoloWhistDeal", "solo_whist_payments",
]

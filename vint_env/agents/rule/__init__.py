"""The rule bots: each game's bidding and play by the rule books' advice (``vint``, ``whist``, ``solo_whist``,
``vint2p``), and what they share: the play view decoded from an observation (``play_view``), hand evaluation
(``hand_eval``) and the books' card-play advice (``card_play``)."""

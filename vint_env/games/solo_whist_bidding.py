"""Solo Whist's rule bot, its bidding thresholds: what a hand must be worth for each contract.

One place for both rule bots of Solo Whist: the Python one (:mod:`vint_env.agents.rule.solo_whist`)
and its compiled twin in the batched engine (:mod:`vint_env.vector.solo_whist_rule`), which the
layers keep apart (agents and the engine each import only the layers below them).
"""

#: Sure tricks a hand needs, with the turned trump, for each contract.
PROPOSAL_TRICKS = 4.0       # Collection: "верных четыре взятки, учитывая козырную масть"
ACCEPT_TRICKS = 4.0         # the pair must take eight together
SOLO_TRICKS = 5.0           # five alone (measured: +2.6 points a solo for the declarer in rule-bot play)
ABONDANCE_TRICKS = 9.0
DECLAREE_TRICKS = 13.0
#: Cards that cannot be kept below the others' (hand_eval.lowness) a misère tolerates
#: (two: made 5 times in 8 among rule bots, +1.5 points a misère).
MISERE_DANGER = 2.0
OPEN_MISERE_DANGER = 0.0

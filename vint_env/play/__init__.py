"""`vint-play`: a person plays against bots at the terminal (:mod:`.cli`, :mod:`.session`); :mod:`.table`
drives one table step by step, for the terminal and for `vint-serve`."""

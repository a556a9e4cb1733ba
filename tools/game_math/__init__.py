"""Pay-table mathematics: exact probabilities, returns and house edges from the firmware's evaluator.

Run ``python -m tools.game_math`` (see ``__main__``); ``run.compute(...)`` returns the same rows
as Python dicts.  Modules: ``exact`` (suit-symmetric complete enumerations), ``brs`` (Big Raise
Stud decisions per start), ``montecarlo`` (the one estimated figure: the UTH Blind given a win),
``bets`` (rows from distributions and pay tables), ``run`` (planning and worker processes),
``text`` (the printed report).  Host-only CPython; counts are exact integers throughout.
"""

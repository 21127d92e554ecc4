"""The lab: tools that measure the game rather than play it. Benchmarks
(``lab.bench``), the paper's evaluations and their judge (``lab.evaluate``), its
controlled evaluation of the architecture's parts (``lab.controlled``),
and the stand-ins they run on: a capable model (``lab.competent``, served as
``scripted/competent``) and always-busy minds (``lab.standins``).

The lab imports the game and the minds; neither ever imports the lab.
"""

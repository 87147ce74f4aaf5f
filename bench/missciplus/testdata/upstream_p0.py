"""run-subtask2-open.py's add_p0_passage_to_claim, line for line, for the fixture scripts
(make_embed.py, make_bm25_rank.py): that script cannot be imported here, its other rankers need
model libraries. Import it after upstream's folder is on sys.path."""
import copy

from missci.util.passage_util import get_p0_from_instance


def add_p0_passage_to_claim(instance):
    instance = copy.deepcopy(instance)
    claim = instance['argument']['claim']
    instance['argument']['original_claim'] = claim
    p0 = get_p0_from_instance(instance, add_p0_as_passage=True)
    instance['argument']['claim'] = p0 + ' Therefore: ' + claim
    return instance

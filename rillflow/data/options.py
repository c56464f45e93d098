"""`tf.data.Options`: pipeline options. rillflow runs every pipeline the same
way, so options are recorded but do not change results."""
import enum

from ..framework.api_export import export


class _OptionGroup:
    """A group of options: any attribute may be set; unset ones are None."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join(
            "%s=%r" % kv for kv in sorted(vars(self).items())))


@export("data.experimental.OptimizationOptions")
class OptimizationOptions(_OptionGroup):
    """Options for static optimizations of the pipeline."""


@export("data.experimental.ThreadingOptions", "data.ThreadingOptions")
class ThreadingOptions(_OptionGroup):
    """Options for the threads of the pipeline."""


@export("data.experimental.DistributeOptions")
class DistributeOptions(_OptionGroup):
    """Options for distributing the pipeline."""


@export("data.experimental.AutoShardPolicy")
class AutoShardPolicy(enum.IntEnum):
    """How a multi-worker strategy shards a dataset (TensorFlow's values);
    rillflow runs one worker, so the policy is recorded only."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


@export("data.experimental.ExternalStatePolicy")
class ExternalStatePolicy(enum.IntEnum):
    """What serializing a pipeline with external state does (TensorFlow's
    values); rillflow never serializes pipelines, so it is recorded only."""
    WARN = 0
    IGNORE = 1
    FAIL = 2


@export("data.experimental.AutotuneAlgorithm")
class AutotuneAlgorithm(enum.Enum):
    """The autotuning algorithms (TensorFlow's values); rillflow does not
    autotune, so the choice is recorded only."""
    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


@export("data.experimental.AutotuneOptions")
class AutotuneOptions(_OptionGroup):
    """Autotuning options (`enabled`, `cpu_budget`, `ram_budget`,
    `autotune_algorithm`): `Options().autotune`, recorded only."""


@export("data.experimental.ServiceOptions")
class ServiceOptions(_OptionGroup):
    """tf.data service options (`pinned`): `Options().experimental_service`,
    recorded only (rillflow's service runs in-process, data/service.py)."""


@export("data.Options")
class Options(_OptionGroup):
    """Options of a dataset (`Dataset.with_options`)."""

    def __init__(self):
        self.experimental_optimization = OptimizationOptions()
        self.threading = ThreadingOptions()
        self.experimental_distribute = DistributeOptions()
        self.autotune = AutotuneOptions()
        self.experimental_service = ServiceOptions()

    def merge(self, options):
        """These options updated with the ones set in `options`."""
        out = Options()
        out.__dict__.update(self.__dict__)
        if options is not None:
            out.__dict__.update(options.__dict__)
        return out

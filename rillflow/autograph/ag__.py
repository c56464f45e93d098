"""The `ag__` namespace converted code calls (passed to it, not imported)."""
from .operators.control_flow import for_stmt, if_stmt, while_stmt  # noqa: F401
from .operators.data_structures import list_append, list_pop, set_element_type, stack  # noqa: F401
from .operators.exceptions import assert_stmt, reraise_staging_error  # noqa: F401
from .operators.logical import and_, compare_chain, if_exp, not_, or_  # noqa: F401
from .operators.variables import (Undefined, UndefinedReturnValue, is_undefined, ld,  # noqa: F401
                                  ldu, retval, store)


def converted_call(f, args, kwargs, caller_fn_scope=None, options=None):
    """Calls `f`, converting it first when it is user code (see api.py)."""
    from .api import converted_call as _cc
    return _cc(f, args, kwargs, caller_fn_scope, options)

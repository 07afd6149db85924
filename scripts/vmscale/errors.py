"""The one error type the CLI turns into a one-line message and a non-zero exit."""


class VmscaleError(Exception):
    """A problem the user can fix; str() is one line naming the problem and the fix."""

    def __init__(self, problem: str, fix: str = ""):
        self.problem = problem
        self.fix = fix
        super().__init__(f"{problem}" + (f" (fix: {fix})" if fix else ""))

"""The queueing-model lab (queueing-model/lab.ipynb) runs top to bottom: every exercise's answer
cell checks itself, so a change to the model that breaks the lab's reading fails here."""

import json

from conftest import REPO

LAB = REPO / "queueing-model" / "lab.ipynb"


def test_the_lab_is_kept_without_outputs():
    nb = json.loads(LAB.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and all(not c["outputs"] and c["execution_count"] is None for c in code)


def test_the_lab_runs_top_to_bottom():
    import nbclient
    import nbformat
    nb = nbformat.read(LAB, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(LAB.parent)}}).execute()
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "MVA" in printed and "measured peak at" in printed and "4096 cores" in printed

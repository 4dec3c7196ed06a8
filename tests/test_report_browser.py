"""The HTML report in a real headless browser: Debian's ``chromium`` driven by ``selenium``
through ``chromium-driver`` (both installed by ``.ci/run``).

The page must load without a console error (nothing SEVERE in the browser's log: a script
error, a resource it tried to load, a breach of its Content-Security-Policy); a click on a
row of the table must move the highlighted path in the tree to that row's path (walked here
from the tree and the row's values); sorting and filtering must reorder and hide rows. A
screenshot of the page is saved to the test's ``tmp_path``.

Without a browser, its driver or selenium the test is skipped with the reason, except
under ``CI=true``, where it fails: CI must run it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from test_report import TENNIS_MODEL, TENNIS_ROWS, walk

import xdt
from xdt.report import write_report

pytestmark = pytest.mark.slow  # a real browser: the thorough tier

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
WAIT = 10  # seconds allowed to the page to get ready


def unavailable(reason: str) -> None:
    """Skip with ``reason``, or under CI=true fail with it."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI=true, so the browser test must run (.ci/run installs "
                    "chromium and chromium-driver)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        unavailable('selenium is not installed (pip install -e ".[test]")')
    binary = next((p for p in map(shutil.which, BROWSERS) if p), None)
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        unavailable("no headless browser: install Debian's chromium and chromium-driver "
                    "(apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1700", "--hide-scrollbars"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # the driver is given by path, so selenium looks nothing up on the network
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def severe(driver) -> list[dict]:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def highlighted(driver, what: str) -> list[int]:
    from selenium.webdriver.common.by import By

    return sorted(int(e.get_attribute("data-node")) for e in driver.find_elements(
        By.CSS_SELECTOR, f"#xdt-tree-box {what}"))


def shown_rows(driver, words: str) -> list[int]:
    """The rows the filter keeps for ``words``."""
    driver.execute_script(
        "var f = document.getElementById('xdt-filter'); f.value = arguments[0];"
        "f.dispatchEvent(new Event('input'))", words)
    return sorted(int(e.get_attribute("data-row")) for e in driver.find_elements(
        "css selector", "#xdt-rows tbody tr") if e.is_displayed())


def test_report_in_a_headless_browser(browser, tmp_path: Path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    tennis = xdt.load_model(TENNIS_MODEL)
    (tmp_path / "tennis.csv").write_text(TENNIS_ROWS)
    rows = pd.read_csv(tmp_path / "tennis.csv", dtype=str)
    records = rows.to_dict("records")
    page = write_report(tennis, rows, tmp_path / "report.html", data_name="tennis.csv",
                        model_name="playtennis.json")
    browser.get(page.as_uri())
    WebDriverWait(browser, WAIT).until(
        lambda d: d.execute_script("return document.documentElement.dataset.ready"))
    assert severe(browser) == []

    # as the page opens, the first row is selected: sunny, high humidity -> no
    assert highlighted(browser, ".xdt-node.on-path") == walk(tennis, records[0]) == [0, 2, 4]
    assert highlighted(browser, ".xdt-edge.on-path") == [2, 4]
    assert highlighted(browser, ".xdt-node.axp") == [0, 2]  # AXp {Humidity, Outlook}

    # a click on row 4 (rain, normal humidity -> yes) moves the path to its leaf
    browser.find_element(By.CSS_SELECTOR, 'tr[data-row="4"]').click()
    assert highlighted(browser, ".xdt-node.on-path") == walk(tennis, records[4]) == [0, 1]
    assert highlighted(browser, ".xdt-edge.on-path") == [1]
    assert highlighted(browser, ".xdt-node.axp") == [0]  # AXp {Humidity}
    assert highlighted(browser, ".xdt-node.cxp") == [0]  # its one CXp, {Humidity}
    detail = browser.find_element(By.ID, "xdt-detail").text
    assert "Row 4: predicted yes (label yes)" in detail
    assert "Its path (1 test):\nIF Humidity = normal THEN play = yes" in detail
    assert "IF Humidity = normal THEN play = yes" in detail
    selected = browser.find_elements(By.CSS_SELECTOR, "tr.selected")
    assert [e.get_attribute("data-row") for e in selected] == ["4"]
    selected = browser.find_elements(By.CSS_SELECTOR, 'tr[aria-selected="true"]')
    assert [e.get_attribute("data-row") for e in selected] == ["4"]  # row 0 no longer

    # and by keyboard: Enter on row 2 (overcast, high -> yes)
    row2 = browser.find_element(By.CSS_SELECTOR, 'tr[data-row="2"]')
    row2.send_keys("\ue007")
    assert highlighted(browser, ".xdt-node.on-path") == walk(tennis, records[2]) == [0, 2, 3]

    # sorting: the row header twice gives descending row numbers
    header = browser.find_element(By.XPATH, "//table[@id='xdt-rows']//th[text()='row']")
    header.click()
    header.click()
    order = [int(e.get_attribute("data-row")) for e in browser.find_elements(
        By.CSS_SELECTOR, "#xdt-rows tbody tr")]
    assert order == list(range(13, -1, -1))
    assert header.get_attribute("aria-sort") == "descending"

    # filtering: the rows whose text holds "overcast" are Quinlan's 2, 6, 11 and 12
    browser.find_element(By.ID, "xdt-filter").send_keys("overcast")
    shown = sorted(int(e.get_attribute("data-row")) for e in browser.find_elements(
        By.CSS_SELECTOR, "#xdt-rows tbody tr") if e.is_displayed())
    assert shown == [k for k, r in enumerate(records) if r["Outlook"] == "overcast"]
    assert shown == [2, 6, 11, 12]
    assert browser.find_element(By.ID, "xdt-shown").text == "4 of 14"
    browser.find_element(By.ID, "xdt-filter").clear()
    browser.execute_script(
        "document.getElementById('xdt-filter').dispatchEvent(new Event('input'))")

    # NAME=VALUE words: a column of the table, or a feature the row carries, exactly
    for words, expected in (
            ("prediction=no", [k for k, r in enumerate(records) if r["Outlook"] != "overcast"
                               and r["Humidity"] == "high"]),
            ("Outlook=rain label=no", [k for k, r in enumerate(records)
                                       if r["Outlook"] == "rain" and r["play"] == "no"]),
            # normal humidity, or an overcast sky, alone guarantees "yes"
            ("|AXp|=1", [k for k, r in enumerate(records)
                         if r["Humidity"] == "normal" or r["Outlook"] == "overcast"])):
        assert shown_rows(browser, words) == expected, words
    assert shown_rows(browser, "Outlook=rai") == []  # exact, not a part of the value
    assert shown_rows(browser, "") == list(range(14))

    browser.find_element(By.CSS_SELECTOR, 'tr[data-row="13"]').click()
    browser.execute_script("window.scrollTo(0, 0)")
    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert severe(browser) == []


def test_text_columns_sort_numbers_as_numbers(browser, tmp_path: Path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from xdt.ir import DecisionTree, Feature, Leaf, ThresholdSplit

    tree = DecisionTree([Feature("x", "ordinal")], ["9", "10"],
                        ThresholdSplit("x", 0.5, Leaf("10"), Leaf("9")))
    rows = pd.DataFrame({"x": [0.0, 1.0, 0.2, 3.0, 0.1]})  # 10, 9, 10, 9, 10
    page = write_report(tree, rows, tmp_path / "classes.html")
    browser.get(page.as_uri())
    WebDriverWait(browser, WAIT).until(
        lambda d: d.execute_script("return document.documentElement.dataset.ready"))
    header = browser.find_element(By.XPATH, "//table[@id='xdt-rows']//th[text()='prediction']")
    header.click()
    order = [(e.get_attribute("data-row"), e.find_elements(By.TAG_NAME, "td")[1].text)
             for e in browser.find_elements(By.CSS_SELECTOR, "#xdt-rows tbody tr")]
    # class 9 before class 10 (as text, "10" < "9"), ties in row order
    assert order == [("1", "9"), ("3", "9"), ("0", "10"), ("2", "10"), ("4", "10")]
    assert shown_rows(browser, "prediction=9") == [1, 3]
    assert severe(browser) == []


def test_a_row_whose_enumeration_stopped_early_does_not_claim_no_cxp(browser, tmp_path: Path,
                                                                   monkeypatch):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from xdt.explain import ExplanationList
    from xdt.report import _html as report_html

    monkeypatch.setattr(report_html.Explainer, "all_cxps", lambda self, x, **options:
                        ExplanationList([], complete=False, stopped_by="time_limit"))
    tennis = xdt.load_model(TENNIS_MODEL)
    rows = pd.DataFrame({"Outlook": ["sunny"], "Humidity": ["high"], "Wind": ["weak"]})
    page = write_report(tennis, rows, tmp_path / "stopped.html", time_limit=1.0)
    browser.get(page.as_uri())
    WebDriverWait(browser, WAIT).until(
        lambda d: d.execute_script("return document.documentElement.dataset.ready"))
    detail = browser.find_element(By.ID, "xdt-detail").text
    assert "CXps: none found." in detail and "there may be more" in detail
    assert "no change of features changes the prediction" not in detail
    assert severe(browser) == []

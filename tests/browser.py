"""Headless Chromium from Debian's packages (`chromium`, `chromium-driver`, installed by .ci/run), driven
by Selenium: open an HTML file from a file:// URL and say what a person's browser would have shown.

Nothing is downloaded: the driver is /usr/bin/chromedriver (Selenium Manager is never asked), the
browser /usr/bin/chromium with a fresh profile, background networking and component updates off.
Every request the page makes and every console message come back from Chromium's own logs.
"""
from __future__ import annotations

import json
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def available() -> str | None:
    """None when the browser can be driven here, else why not."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for p in (CHROMIUM, CHROMEDRIVER):
        if not Path(p).exists():
            return f"{p} is missing (apt-get install chromium chromium-driver; .ci/run does)"
    return None


@dataclass
class PageVisit:
    load_seconds: float                      # navigation start to the load event, as the page measured it
    ready_seconds: float                     # until every chart was drawn
    console: list[dict] = field(default_factory=list)   # Chromium's console log entries
    requests: list[str] = field(default_factory=list)   # every URL the page requested
    figures: list[dict] = field(default_factory=list)   # [data-path] elements: src, path, v, text
    table_rows: list[dict] = field(default_factory=list)  # the relations table as drawn: rel, db, cells' data-v
    plots_drawn: int = 0
    screenshot: Path | None = None
    hovers: list[str] = field(default_factory=list)  # the hover label's text, one per point asked for


def open_page(html: Path, screenshot: Path | None = None, width: int = 1300, height: int = 1000,
              timeout: float = 60.0, full_page: bool = False, scroll_to: str | None = None,
              hover: list[tuple[str, float, float]] = (), pdf: Path | None = None) -> PageVisit:
    """``hover``: (a chart's CSS selector, x and y as fractions of its plot area) where the mouse rests;
    ``pdf``: print the page there (A4), as a person's "print to PDF" would."""
    from selenium import webdriver
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="pgpage-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage",
                f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    try:
        driver.set_page_load_timeout(timeout)
        t0 = time.monotonic()
        driver.get(Path(html).resolve().as_uri())
        deadline = time.monotonic() + timeout
        while not driver.execute_script("return document.body.dataset.plotsDone === '1'"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{html}: the charts were not all drawn in {timeout} s")
            time.sleep(0.05)
        ready = time.monotonic() - t0
        load = driver.execute_script(
            "var n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd / 1000;")
        figures = driver.execute_script("""
            return Array.prototype.map.call(document.querySelectorAll('[data-path]'), function (e) {
              return {src: e.dataset.src, path: e.dataset.path, v: e.dataset.v, text: e.textContent}; });""")
        rows = driver.execute_script("""
            return Array.prototype.map.call(document.querySelectorAll('#reltable tbody tr'), function (tr) {
              return {db: tr.dataset.db, rel: tr.dataset.rel,
                      cells: Array.prototype.map.call(tr.cells, function (td) { return td.dataset.v; })}; });""")
        drawn = driver.execute_script("return document.querySelectorAll('.plot .main-svg').length ? "
                                      "document.querySelectorAll('.plot.js-plotly-plot').length : 0;")
        hovers = []
        for selector, fx, fy in hover:
            area = driver.find_element(By.CSS_SELECTOR, selector + " .nsewdrag")
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", area)
            w, h = area.rect["width"], area.rect["height"]
            ActionChains(driver).move_to_element_with_offset(area, int(w * (fx - 0.5)), int(h * (fy - 0.5))).perform()
            time.sleep(0.3)
            hovers.append(driver.execute_script("var h = document.querySelector(arguments[0] + ' .hoverlayer');"
                                                " return h ? h.textContent : '';", selector))
        driver.execute_script("window.scrollTo(0, 0)")
        shot = None
        if screenshot is not None:
            if scroll_to:  # the viewport from this element down
                driver.execute_script("document.querySelector(arguments[0]).scrollIntoView()", scroll_to)
                time.sleep(0.3)
            elif full_page:
                driver.set_window_size(width, driver.execute_script("return document.body.scrollHeight") + 120)
                time.sleep(0.5)
            driver.save_screenshot(str(screenshot))
            shot = Path(screenshot)
        if pdf is not None:
            import base64
            from selenium.webdriver.common.print_page_options import PrintOptions
            options = PrintOptions()
            options.page_width, options.page_height = 21.0, 29.7
            Path(pdf).write_bytes(base64.b64decode(driver.print_page(options)))
        console = driver.get_log("browser")
        requests = []
        for entry in driver.get_log("performance"):
            msg = json.loads(entry["message"])["message"]
            if msg.get("method") == "Network.requestWillBeSent":
                requests.append(msg["params"]["request"]["url"])
        page = Path(html).resolve().as_uri()  # what the browser's own start page asked for went before it
        requests = requests[requests.index(page):] if page in requests else requests
        return PageVisit(load_seconds=load, ready_seconds=ready, console=console, requests=requests,
                         figures=figures, table_rows=rows, plots_drawn=drawn, screenshot=shot,
                         hovers=hovers)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)

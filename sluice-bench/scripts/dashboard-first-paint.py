#!/usr/bin/env python3
"""First paint of each dashboard page with 1,000,000 jobs stored (issue 16), in headless Chromium.

Starts `bin/sluice serve` over a fresh data directory, enqueues the jobs with POST /jobs/bulk
(10 queues; every tenth job bound to a rate budget, so the Budgets page and a job's wait
explanation have a million-job store behind them), then loads every page in a new tab and reads
two figures from the browser's Performance API:

  fcp   first-contentful-paint: the page's shell is on screen
  data  the dashboard's own "sluice-data-rendered" mark: the page shows the server's data

Each page is loaded RUNS times (default 3) and the medians are printed. Chromium is driven
through chromium-driver's W3C WebDriver HTTP interface directly, so nothing but Debian's
chromium and chromium-driver packages is needed.

    sluice-bench/scripts/dashboard-first-paint.py [--jobs 1000000] [--runs 3]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PORT, ADMIN_PORT, DRIVER_PORT = 18951, 18952, 18953
QUEUES = 10
BATCH = 5000
BUDGET = "partner-api"


def request(method, url, body=None, timeout=120):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as response:
        text = response.read()
        return json.loads(text) if text else None


def wait_until_up(url, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            request("GET", url)
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)
    sys.exit(f"nothing answered at {url} within {seconds} s")


def fill(api, jobs):
    request("PUT", f"{api}/budgets/{BUDGET}",
            {"allocation": 100, "strategy": {"type": "time_based", "duration_ms": 60000}})
    group = {"entries": [{"name": "nightly-report", "expression": "0 3 * * *",
                          "job": {"type": "report.build", "queue": "reports", "payload": {}}}]}
    request("PUT", f"{api}/crons/maintenance", group)
    started = time.time()
    middle = None
    for first in range(0, jobs, BATCH):
        batch = []
        for n in range(first, min(jobs, first + BATCH)):
            job = {"type": f"task.{n % 7}", "queue": f"queue-{n % QUEUES}",
                   "payload": {"n": n, "customer": f"c{n % 977}"}}
            if n % 10 == 0:
                job["budgets"] = [{"key": BUDGET}]
            batch.append(job)
        made = request("POST", f"{api}/jobs/bulk", {"jobs": batch})
        if middle is None and first + BATCH > jobs // 2:
            middle = made["jobs"][(jobs // 2 - first) // 10 * 10]["id"]  # a bound job
    print(f"enqueued {jobs:,} jobs in {time.time() - started:.0f} s", file=sys.stderr)
    return middle


class Browser:
    """A chromium-driver session with headless Chromium."""

    def __init__(self):
        self.driver = subprocess.Popen(["chromedriver", f"--port={DRIVER_PORT}"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{DRIVER_PORT}"
        wait_until_up(f"{self.base}/status", 30)
        options = {"binary": "/usr/bin/chromium",
                   "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                            "--window-size=1280,900"]}
        session = request("POST", f"{self.base}/session", {"capabilities": {
            "alwaysMatch": {"goog:chromeOptions": options}}})
        self.session = f"{self.base}/session/{session['value']['sessionId']}"

    def load(self, url):
        """Loads url in a fresh document; returns (fcp ms, data-rendered ms)."""
        request("POST", f"{self.session}/url", {"url": "about:blank"})
        request("POST", f"{self.session}/url", {"url": url})
        script = """
          const done = arguments[arguments.length - 1];
          const read = () => {
            const data = performance.getEntriesByName('sluice-data-rendered')[0];
            const fcp = performance.getEntriesByName('first-contentful-paint')[0];
            if (data && fcp) done([fcp.startTime, data.startTime]);
            else setTimeout(read, 10);
          };
          read();"""
        return request("POST", f"{self.session}/execute/async",
                       {"script": script, "args": []})["value"]

    def close(self):
        try:
            request("DELETE", self.session)
        finally:
            self.driver.terminate()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="sluice-first-paint-")
    log = open(os.path.join(workdir, "server.log"), "w")
    server = subprocess.Popen(
        [os.path.join(ROOT, "bin", "sluice"), "serve", f"--port={PORT}",
         f"--admin-port={ADMIN_PORT}"], cwd=workdir, stdout=log, stderr=subprocess.STDOUT)
    browser = None
    try:
        api = f"http://127.0.0.1:{PORT}"
        wait_until_up(f"{api}/health", 300)
        middle = fill(api, args.jobs)
        admin = f"http://127.0.0.1:{ADMIN_PORT}"
        pages = {"overview": "#/overview", "queues": "#/queues", "jobs": "#/jobs",
                 "jobs (queue-3, ready)": "#/jobs?queue=queue-3&status=ready",
                 "job detail": f"#/jobs/{middle}", "budgets": "#/budgets", "cron": "#/cron"}
        browser = Browser()
        browser.load(f"{admin}/")  # the first load of the session warms the browser's caches
        results = {name: [browser.load(f"{admin}/{path}") for _ in range(args.runs)]
                   for name, path in pages.items()}
        print(f"{args.jobs:,} jobs stored; medians of {args.runs} loads (ms since navigation)")
        print(f"{'page':24} {'first paint':>12} {'data shown':>12}")
        for name, runs in results.items():
            fcp = statistics.median(r[0] for r in runs)
            data = statistics.median(r[1] for r in runs)
            print(f"{name:24} {fcp:12.0f} {data:12.0f}")
    finally:
        if browser:
            browser.close()
        server.terminate()
        server.wait(60)
        log.close()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()

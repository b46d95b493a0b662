package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.boundJob;
import static io.sluice.cli.http.BudgetClient.timeBased;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web dashboard (X8) in a real headless Chromium against a real server: every page shows
 * the server's data, the actions change the server's state (checked through the API), live
 * figures change without a reload, and bad input shows the server's message. One server and one
 * browser for the whole class. CI installs Chromium (.ci/run); elsewhere the class is skipped
 * when it is missing.
 */
class DashboardBrowserTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @RegisterExtension
  static final ServerFixture server = ServerFixture.perTestClass();

  private static final BudgetClient budgets = new BudgetClient(server);
  private static ChromeDriver browser;

  @BeforeAll
  static void startBrowser() {
    assumeTrue(System.getenv("CI") != null || HeadlessChromium.available(),
        "chromium and chromium-driver are not installed (CI installs them)");
    browser = HeadlessChromium.start();
  }

  @AfterAll
  static void stopBrowser() {
    if (browser != null) {
      browser.quit();
    }
  }

  private static void open(String hash) {
    browser.get("http://127.0.0.1:" + server.adminPort() + "/#/" + hash);
  }

  private static WebElement await(By what) {
    return new WebDriverWait(browser, WAIT)
        .until(ExpectedConditions.visibilityOfElementLocated(what));
  }

  private static void awaitText(By what, String text) {
    new WebDriverWait(browser, WAIT)
        .until(ExpectedConditions.textToBePresentInElementLocated(what, text));
  }

  /** Clicks what {@code what} finds, finding it again if the page redrew it meanwhile. */
  private static void click(By what) {
    new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
        .until(driver -> {
          driver.findElement(what).click();
          return true;
        });
  }

  /** The text of what {@code what} finds, read in one step while the page redraws. */
  private static String text(By what) {
    return new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
        .until(driver -> driver.findElement(what).getText());
  }

  /**
   * The figure shown in the element with {@code id}, read in one step while it redraws; -1 while
   * the page has no figure for it yet (it shows a dash until the feed's first message).
   */
  private static long figure(String id) {
    await(By.id(id));
    String text = (String) browser.executeScript(
        "return document.getElementById(arguments[0]).textContent", id);
    return text.matches("[0-9,]+") ? Long.parseLong(text.replace(",", "")) : -1;
  }

  private static List<String> enqueue(String queue, int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> id(server.enqueue(queue, "dash.work"))).toList();
  }

  @Test
  void overviewCountsChangeWithoutAReloadWhileJobsAreEnqueuedAndTheChartFills() {
    String queue = ServerFixture.uniqueName("overview");
    enqueue(queue, 3);
    open("overview");
    long before = ServerFixture.poll(() -> figure("count-ready"), n -> n >= 3,
        "the ready count");
    browser.executeScript("window.notReloaded = true");

    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=1")) {
      for (int second = 0; second < 3; second++) {
        enqueue(queue, 20);
        for (int i = 0; i < 5; i++) {
          server.ack(id(worker.nextJob()));
        }
        sleep(Duration.ofMillis(1000));
      }
      awaitText(By.id("count-workers"), "1");
      ServerFixture.poll(() -> figure("count-ready"), n -> n >= before + 40,
          "the ready count to grow");
      ServerFixture.poll(() -> figure("window-completed"), n -> n >= 15,
          "the chart's completions to count the acknowledged jobs");
      HeadlessChromium.screenshot(browser, "dashboard-overview");
    }
    assertThat(browser.executeScript("return window.notReloaded === true")).isEqualTo(true);
    Object plotted = browser.executeScript(
        "return document.querySelectorAll('#throughput-chart canvas').length");
    assertThat((Long) plotted).isEqualTo(1L);
  }

  @Test
  void queuesPageShowsDepthPerStatus() {
    String queue = ServerFixture.uniqueName("queues");
    enqueue(queue, 3);
    ObjectNode later = job(queue, "dash.later");
    later.put("ready_at", server.nowMs() + 3_600_000);
    server.enqueue(later);
    server.enqueue(later);
    open("queues");
    By row = By.cssSelector("tr[data-queue='" + queue + "']");
    await(row);
    // The row shows the feed's latest status message, which may predate the last enqueues (the
    // feed is the page's, opened before this test): the row catches up with the next one.
    String expected = String.join(" ", queue, "2", "3", "0", "0", "0", "5");
    String shown = ServerFixture.poll(() -> String.join(" ", text(row).split("\\s+")),
        expected::equals, "the queue's row to count all five jobs");
    assertThat(shown).isEqualTo(expected);
    HeadlessChromium.screenshot(browser, "dashboard-queues");
  }

  @Test
  void jobsPageFiltersByQueueAndPagesFiftyAtATime() {
    String queue = ServerFixture.uniqueName("paged");
    List<String> ids = enqueue(queue, 60);
    open("jobs?queue=" + queue);
    await(By.cssSelector("tr[data-id='" + ids.get(0) + "']"));
    assertThat(browser.findElements(By.cssSelector("#jobs-table tbody tr"))).hasSize(50);
    HeadlessChromium.screenshot(browser, "dashboard-jobs");
    click(By.id("jobs-next"));
    await(By.cssSelector("tr[data-id='" + ids.get(59) + "']"));
    assertThat(browser.findElements(By.cssSelector("#jobs-table tbody tr"))).hasSize(10);
    click(By.id("jobs-prev"));
    await(By.cssSelector("tr[data-id='" + ids.get(0) + "']"));
  }

  @Test
  void anInvalidJqFilterShowsTheServersMessage() {
    String filter = ".n |||";
    String expected = server.get("/jobs?filter="
        + URLEncoder.encode(filter, StandardCharsets.UTF_8)).error();
    open("jobs");
    await(By.name("filter")).sendKeys(filter);
    click(By.cssSelector("#job-filters button"));
    await(By.cssSelector("#jobs-result .error"));
    assertThat(text(By.cssSelector("#jobs-result .error"))).isEqualTo(expected);
  }

  @Test
  void aJobsDetailExplainsWhyItWaits() {
    String queue = ServerFixture.uniqueName("explained");
    String key = queue + "-api";
    budgets.define(key, timeBased(1, 3_600_000));
    server.enqueue(boundJob(queue, key));
    String second = id(server.enqueue(boundJob(queue, key)));
    JsonNode wait = server.get("/jobs/" + second + "/wait").json();
    assertThat(wait.at("/budgets/0/reason").textValue()).isEqualTo("queue");

    open("jobs/" + second);
    await(By.cssSelector("#job-wait[data-waiting-for='budgets']"));
    String row = "#job-wait tr[data-budget='" + key + "']";
    await(By.cssSelector(row));
    assertThat(text(By.cssSelector(row + " .reason"))).isEqualTo("queue");
    assertThat(text(By.cssSelector(row))).contains("1 / 1"); // one job of cost 1 ahead
    assertThat(text(By.id("job-payload"))).contains("\"n\": 1");
    HeadlessChromium.screenshot(browser, "dashboard-job");
  }

  @Test
  void deletingAJobFromTheDetailRemovesItFromTheServer() {
    String doomed = server.enqueueId(ServerFixture.uniqueName("doomed"));
    open("jobs/" + doomed);
    await(By.id("job-delete"));
    click(By.id("job-delete"));
    browser.switchTo().alert().accept();
    awaitText(By.id("job-notice"), "deleted");
    assertThat(server.get("/jobs/" + doomed).status()).isEqualTo(404);
  }

  @Test
  void retryingADeadJobEnqueuesItAgainAndRunNowMakesAScheduledJobReady() {
    String queue = ServerFixture.uniqueName("dead");
    ObjectNode fragile = job(queue, "dash.fragile");
    fragile.put("retry_limit", 0);
    String dead;
    try (ServerFixture.Taken taken = server.takeOne(fragile)) {
      dead = taken.id();
      server.fail(dead, ServerFixture.JSON.createObjectNode().put("message", "upstream 503"));
    }
    assertThat(server.getJob(dead).get("status").textValue()).isEqualTo("dead");
    open("jobs/" + dead);
    awaitText(By.id("job-body"), "upstream 503");
    await(By.id("job-retry"));
    click(By.id("job-retry"));
    await(By.id("retried-as"));
    String retried = text(By.id("retried-as"));
    JsonNode copy = server.getJob(retried);
    assertThat(copy.get("status").textValue()).isEqualTo("ready");
    assertThat(copy.get("queue").textValue()).isEqualTo(queue);
    assertThat(copy.get("type").textValue()).isEqualTo("dash.fragile");
    assertThat(copy.get("payload")).isEqualTo(server.getJob(dead).get("payload"));

    ObjectNode later = job(queue, "dash.later");
    later.put("ready_at", server.nowMs() + 3_600_000);
    String scheduled = id(server.enqueue(later));
    open("jobs/" + scheduled);
    await(By.id("job-run-now"));
    click(By.id("job-run-now"));
    awaitText(By.id("job-notice"), "moved to ready");
    assertThat(server.getJob(scheduled).get("status").textValue()).isEqualTo("ready");
  }

  @Test
  void pausingABudgetFromThePageStopsItsDispatchAndResumeEndsThePause() {
    String queue = ServerFixture.uniqueName("paused");
    String key = queue + "-partner";
    budgets.define(key, timeBased(10, 60_000));
    budgets.define(queue + "-render", timeBased(4, 10_000));
    List<String> bound = IntStream.range(0, 12)
        .mapToObj(i -> id(server.enqueue(boundJob(queue, key)))).toList();
    try (WorkerStream worker = server.take("queue=" + queue)) {
      for (int i = 0; i < 10; i++) {
        server.ack(id(worker.nextJob()));
      }
    }
    open("budgets");
    String card = ".budget[data-key='" + key + "']";
    awaitText(By.cssSelector(card + " [data-figure='waiting']"), "2 jobs");
    HeadlessChromium.screenshot(browser, "dashboard-budgets");

    click(By.cssSelector(card + " button.pause"));
    await(By.cssSelector(card + " .paused-badge"));
    JsonNode state = server.get("/budgets/" + key + "?state=true").json().get("state");
    assertThat(state.get("paused_until").longValue()).isGreaterThan(server.nowMs());
    JsonNode wait = server.get("/jobs/" + bound.get(10) + "/wait").json();
    assertThat(wait.at("/budgets/0/reason").textValue()).isEqualTo("paused");

    click(By.cssSelector(card + " button.resume"));
    new WebDriverWait(browser, WAIT).until(ExpectedConditions.invisibilityOfElementLocated(
        By.cssSelector(card + " .paused-badge")));
    JsonNode resumed = server.get("/budgets/" + key + "?state=true").json();
    assertThat(resumed.at("/state/paused_until").isNull()).isTrue();
  }

  @Test
  void aPartitionedBudgetShowsItsBusiestPartitions() {
    String queue = ServerFixture.uniqueName("tenants");
    String key = queue + "-per-account";
    budgets.define(key, PartitionedBudgetHttpTest.partitioned(whileInFlight(1)));
    for (String account : List.of("acct_7", "acct_3", "acct_7", "acct_7", "acct_3", "acct_9")) {
      server.enqueue(PartitionedBudgetHttpTest.jobOn(queue, key, account));
    }
    open("budgets");
    String card = ".budget.partitioned[data-key='" + key + "']";
    awaitText(By.cssSelector(card + " [data-figure='partitions']"), "3");
    await(By.cssSelector(card + " table.busiest tr[data-partition='acct_7']"));
    browser.executeScript("arguments[0].scrollIntoView()",
        browser.findElement(By.cssSelector(card)));
    HeadlessChromium.screenshot(browser, "dashboard-budget-partitions");

    List<String> rows = browser.findElements(By.cssSelector(card + " table.busiest tbody tr"))
        .stream().map(row -> row.getAttribute("data-partition")).toList();
    assertThat(rows).containsExactly("acct_7", "acct_3", "acct_9");
    assertThat(text(By.cssSelector(card + " tr[data-partition='acct_7'] td:nth-child(2)")))
        .isEqualTo("3");
  }

  @Test
  void cronPageShowsEntriesWithTheirNextFireAndPausesOne() {
    String group = ServerFixture.uniqueName("nightly");
    ServerFixture.Reply put = server.send("PUT", "/crons/" + group, """
        {"entries": [
          {"name": "report", "expression": "0 3 * * *",
           "job": {"type": "report.build", "queue": "reports", "payload": {}}},
          {"name": "cleanup", "expression": "*/5 * * * *",
           "job": {"type": "tmp.cleanup", "queue": "maintenance", "payload": {}}}]}
        """.getBytes(StandardCharsets.UTF_8), "Content-Type", "application/json");
    assertThat(put.status()).as("%s", put).isEqualTo(200);
    open("cron");
    String entry = ".cron-group[data-group='" + group + "'] tr[data-entry='report']";
    await(By.cssSelector(entry));
    assertThat(text(By.cssSelector(entry + " .next-fire"))).startsWith("in ");
    HeadlessChromium.screenshot(browser, "dashboard-cron");

    click(By.cssSelector(entry + " button.pause"));
    await(By.cssSelector(entry + " button.resume"));
    JsonNode paused = server.get("/crons/" + group + "/entries/report").json();
    assertThat(paused.get("paused").booleanValue()).isTrue();
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted");
    }
  }
}

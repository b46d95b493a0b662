package io.sluice.cli.top;

import static io.sluice.cli.top.FeedMessages.NOW_MS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The screen drawn from a model alone: layout, columns, styles, prompts and the detail panel. */
class ScreenRendererTest {
  private static final int WIDTH = 120;
  private static final int HEIGHT = 20;

  private TopModel model;
  private TopKeys keys;

  @BeforeEach
  void readyTab() {
    model = new TopModel("http://127.0.0.1:8901", "0.1.0", 500);
    keys = new TopKeys(model);
    keys.start(ScreenRenderer.listRows(HEIGHT, false));
    model.apply(FeedMessages.status(2, 40, 1, 3), NOW_MS);
    keys.press(Key.of(Key.Kind.TAB));
    model.apply(FeedMessages.window("ready", 0, ScreenRenderer.listRows(HEIGHT, false), 40),
        NOW_MS);
  }

  @Test
  void headerCountsTabsDepthBarTableAndHintsFillTheScreenExactly() {
    List<Line> screen = ScreenRenderer.render(model, WIDTH, HEIGHT, NOW_MS);

    assertThat(screen).hasSize(HEIGHT);
    assertThat(screen).allSatisfy(line -> assertThat(line.text().length()).isLessThanOrEqualTo(
        WIDTH));
    assertThat(screen.get(0).text()).isEqualTo("sluice top  http://127.0.0.1:8901  client 0.1.0"
        + "  server 0.1.0 (API 0.7.0)  up 1h 02m");
    assertThat(screen.get(1).text())
        .isEqualTo("scheduled 2   ready 40   in flight 1   completed 0   dead 0");
    assertThat(screen.get(2).text())
        .isEqualTo(" In-Flight (1)   Ready (40)   Scheduled (2)   Budgets (3)  ");
    assertThat(screen.get(2).spans().get(2)).isEqualTo(
        new Line.Span(" Ready (40) ", Line.Style.REVERSE));
    assertThat(screen.get(3).text()).startsWith("depth [#---").endsWith("]  row 1 of 40");
    assertThat(screen.get(4).text()).isEqualTo("  ID                         QUEUE    TYPE      "
        + "  PRI    ATT  WAITING FOR  READY AT");
    assertThat(screen.get(5).text()).isEqualTo("* job-000000000000000000000  mail-eu  email.send"
        + "      5    1        12.0s  2026-11-30T00:53:08Z");
    assertThat(screen.get(HEIGHT - 1).text()).startsWith("Up/Down PgUp/PgDn move");
  }

  @Test
  void theSelectedRowIsReversedAndMatchesAreMarked() {
    keys.press(Key.of(Key.Kind.DOWN));
    List<Line> screen = ScreenRenderer.render(model, WIDTH, HEIGHT, NOW_MS);

    assertThat(screen.get(5).spans().get(0).style()).isEqualTo(Line.Style.MATCH);
    assertThat(screen.get(6).spans().get(0).style()).isEqualTo(Line.Style.REVERSE);
    assertThat(screen.get(7).text()).startsWith("  job-000000000000000000002");
    assertThat(screen.get(8).text()).startsWith("* job-000000000000000000003");
    assertThat(screen.get(3).text()).endsWith("row 2 of 40");
  }

  @Test
  void theDepthMarkerFollowsTheSelectionThroughTheWholeList() {
    keys.press(Key.of(Key.Kind.END));
    model.apply(FeedMessages.window("ready", 27, 13, 40), NOW_MS);
    String depth = ScreenRenderer.render(model, WIDTH, HEIGHT, NOW_MS).get(3).text();
    assertThat(depth).contains("-#]").endsWith("row 40 of 40");
  }

  @Test
  void deleteConfirmationAndSearchBarTakeThePromptLine() {
    keys.press(Key.ch('D'));
    assertThat(promptLine()).isEqualTo("Delete job job-000000000000000000000 (email.send in"
        + " mail-eu)? [y/N] ");
    keys.press(Key.ch('n'));

    keys.press(Key.ch('/'));
    for (char c : "mail".toCharArray()) {
      keys.press(Key.ch(c));
    }
    keys.press(Key.of(Key.Kind.TAB));
    keys.press(Key.ch('e'));
    assertThat(promptLine()).isEqualTo("Search  type: [mail]  queue: [e_]   Tab field  Enter"
        + " search  Esc cancel");
    keys.press(Key.of(Key.Kind.ENTER));
    assertThat(promptLine()).isEqualTo("search: type [mail] queue [e]  (n/N next/prev, Esc"
        + " clears)");
    assertThat(ScreenRenderer.render(model, WIDTH, HEIGHT, NOW_MS).get(3).text())
        .endsWith("matches counting...");
  }

  @Test
  void detailsShowTheSelectedJobsPayloadAndFullTimestamps() {
    keys.press(Key.ch('i'));
    List<Line> screen = ScreenRenderer.render(model, WIDTH, HEIGHT, NOW_MS);
    String text = String.join("\n", screen.stream().map(Line::text).toList());

    assertThat(text).contains("-- details ---")
        .contains("id          job-000000000000000000000   status ready")
        .contains("ready at    2026-11-30T00:53:08Z   dequeued at -")
        .contains("payload     {\"n\":0}");
    assertThat(screen).hasSize(HEIGHT);
  }

  @Test
  void rightArrowScrollsTheTableButNotTheHeader() {
    keys.press(Key.of(Key.Kind.RIGHT));
    List<Line> screen = ScreenRenderer.render(model, WIDTH, HEIGHT, NOW_MS);
    assertThat(screen.get(5).text()).startsWith("0000000000000000000  mail-eu");
    assertThat(screen.get(0).text()).startsWith("sluice top");
  }

  @Test
  void budgetsShowTokensAsABarWithInFlightWaitingAndTheNextToken() {
    keys.press(Key.of(Key.Kind.TAB));
    keys.press(Key.of(Key.Kind.TAB));
    model.apply(FeedMessages.budgets("partner-api", 5, 10, 57, NOW_MS + 1_500), NOW_MS);
    List<Line> screen = ScreenRenderer.render(model, WIDTH, HEIGHT, NOW_MS);

    assertThat(screen.get(4).text()).isEqualTo("  BUDGET       TOKENS                          "
        + "AVAIL  IN FLIGHT    WAITING  NEXT TOKEN  PAUSED");
    assertThat(screen.get(5).text()).isEqualTo("  partner-api  [##########----------]         "
        + "  5/10          2         57     in 1.5s  -");
  }

  @Test
  void aPartitionedBudgetShowsItsPartitionsInsteadOfABar() {
    keys.press(Key.of(Key.Kind.TAB));
    keys.press(Key.of(Key.Kind.TAB));
    JsonNode message = FeedMessages.budgets("per-account", 0, 10, 57, null);
    ObjectNode budget = (ObjectNode) message.get("budgets").get(0);
    budget.put("partitioned", true);
    ((ObjectNode) budget.get("state")).putNull("tokens").put("partitions", 1_234);
    model.apply(message, NOW_MS);
    List<Line> screen = ScreenRenderer.render(model, WIDTH, HEIGHT, NOW_MS);

    assertThat(screen.get(5).text()).isEqualTo("  per-account  per partition          "
        + "   1,234 parts          2         57           -  -");
  }

  @Test
  void anEmptyTabSaysSo() {
    keys.press(Key.of(Key.Kind.TAB));
    model.apply(FeedMessages.window("scheduled", 0, 0, 0), NOW_MS);
    List<Line> screen = ScreenRenderer.render(model, WIDTH, HEIGHT, NOW_MS);
    assertThat(screen.get(5).text()).isEqualTo("  (no scheduled jobs)");
    assertThat(screen.get(3).text()).endsWith("]  empty");
  }

  @Test
  void aLostConnectionIsShownInTheTitleAndPrompt() {
    model.disconnected("the server closed the connection (1006)");
    List<Line> screen = ScreenRenderer.render(model, WIDTH, HEIGHT, NOW_MS);
    assertThat(screen.get(0).text()).endsWith("NOT CONNECTED");
    assertThat(promptLine()).isEqualTo("disconnected: the server closed the connection (1006)"
        + "; reconnecting (q quits)");
  }

  private String promptLine() {
    return ScreenRenderer.render(model, WIDTH, HEIGHT, NOW_MS).get(HEIGHT - 2).text();
  }
}

package io.sluice.cli.top;

import static io.sluice.cli.top.FeedMessages.NOW_MS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.api.events.Tab;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every key of CLI.md §10.4 against the screen model, without a terminal or a server. */
class TopKeysTest {
  private static final int PAGE = 10;

  private TopModel model;
  private TopKeys keys;

  @BeforeEach
  void readyTabWithAHundredJobs() {
    model = new TopModel("http://127.0.0.1:8901", "0.1.0", 500);
    keys = new TopKeys(model);
    keys.start(PAGE);
    model.apply(FeedMessages.status(0, 100, 0, 0), NOW_MS);
    keys.press(Key.of(Key.Kind.TAB));
    model.apply(FeedMessages.window("ready", 0, PAGE, 100), NOW_MS);
  }

  @Test
  void startSubscribesToTheFirstTabWithThePageSizeAndRefreshRate() {
    TopModel fresh = new TopModel("u", "v", 250);
    assertThat(new TopKeys(fresh).start(7)).singleElement().hasToString(
        "{\"type\":\"subscribe\",\"tab\":\"in_flight\",\"offset\":0,\"limit\":7,"
            + "\"refresh_ms\":250,\"search\":{\"types\":[],\"queues\":[]}}");
  }

  @Test
  void arrowsMoveTheSelectionAndScrollOnlyWhenItLeavesThePage() {
    for (int i = 0; i < PAGE - 1; i++) {
      assertThat(keys.press(Key.of(Key.Kind.DOWN))).isEmpty();
    }
    assertThat(model.selectedJob().id()).isEqualTo(FeedMessages.id(9));
    assertThat(keys.press(Key.of(Key.Kind.DOWN))).containsExactly(Requests.scroll(1));
    assertThat(keys.press(Key.of(Key.Kind.UP))).isEmpty();
    assertThat(keys.press(Key.of(Key.Kind.UP)).isEmpty()).isTrue(); // still inside page 1..10
    model.apply(FeedMessages.window("ready", 1, PAGE, 100), NOW_MS);
    for (int i = 0; i < 7; i++) {
      assertThat(keys.press(Key.of(Key.Kind.UP))).isEmpty();
    }
    assertThat(keys.press(Key.of(Key.Kind.UP))).containsExactly(Requests.scroll(0));
  }

  @Test
  void pagesAndEndsJumpAndAskForTheirWindow() {
    assertThat(keys.press(Key.of(Key.Kind.PAGE_DOWN))).containsExactly(Requests.scroll(10));
    assertThat(keys.press(Key.of(Key.Kind.END))).containsExactly(Requests.scroll(90));
    assertThat(model.cursor().selected()).isEqualTo(99);
    assertThat(keys.press(Key.of(Key.Kind.PAGE_UP))).containsExactly(Requests.scroll(80));
    assertThat(model.cursor().selected()).isEqualTo(89);
    assertThat(keys.press(Key.ch('g'))).containsExactly(Requests.scroll(0));
    assertThat(keys.press(Key.ch('G'))).containsExactly(Requests.scroll(90));
    assertThat(keys.press(Key.of(Key.Kind.HOME))).containsExactly(Requests.scroll(0));
  }

  @Test
  void aWindowFromTheServerMovesThePageAndKeepsTheSelectionInsideIt() {
    keys.press(Key.of(Key.Kind.END));
    model.apply(FeedMessages.window("ready", 88, PAGE, 98), NOW_MS); // two jobs left meanwhile
    assertThat(model.cursor().offset()).isEqualTo(88);
    assertThat(model.selectedJob().id()).isEqualTo(FeedMessages.id(97));
  }

  @Test
  void tabAndShiftTabCycleThroughTheTabsAndSubscribeFromTheTop() {
    keys.press(Key.of(Key.Kind.PAGE_DOWN));
    List<ObjectNode> sent = keys.press(Key.of(Key.Kind.TAB));
    assertThat(model.tab()).isEqualTo(Tab.SCHEDULED);
    assertThat(sent).singleElement().satisfies(message -> {
      assertThat(message.get("tab").asText()).isEqualTo("scheduled");
      assertThat(message.get("offset").asLong()).isZero();
      assertThat(message.get("limit").asInt()).isEqualTo(PAGE);
    });
    keys.press(Key.of(Key.Kind.TAB));
    assertThat(model.tab()).isEqualTo(Tab.BUDGETS);
    keys.press(Key.of(Key.Kind.TAB));
    assertThat(model.tab()).isEqualTo(Tab.IN_FLIGHT);
    keys.press(Key.of(Key.Kind.BACK_TAB));
    assertThat(model.tab()).isEqualTo(Tab.BUDGETS);
  }

  @Test
  void slashTypesATypeAndQueueSearchThenEnterSearchesAndFindsTheNextMatch() {
    keys.press(Key.ch('/'));
    typeText("email");
    keys.press(Key.of(Key.Kind.TAB));
    typeText("eu,  renderx");
    keys.press(Key.of(Key.Kind.BACKSPACE));
    assertThat(model.searchInput().queues()).isEqualTo("eu,  render");

    List<ObjectNode> sent = keys.press(Key.of(Key.Kind.ENTER));

    assertThat(sent).hasSize(2);
    assertThat(sent.get(0)).hasToString("{\"type\":\"search\",\"search\":{\"types\":[\"email\"],"
        + "\"queues\":[\"eu\",\"render\"]}}");
    assertThat(sent.get(1)).isEqualTo(Requests.find(true, FeedMessages.id(0), 0));
    assertThat(model.searchInput()).isNull();
    assertThat(model.searching()).isTrue();
  }

  @Test
  void escapeWhileTypingCancelsAndEscapeAfterwardsClearsTheSearch() {
    keys.press(Key.ch('/'));
    typeText("pdf");
    assertThat(keys.press(Key.of(Key.Kind.ESCAPE))).isEmpty();
    assertThat(model.searching()).isFalse();

    keys.press(Key.ch('/'));
    typeText("pdf");
    keys.press(Key.of(Key.Kind.ENTER));
    assertThat(keys.press(Key.of(Key.Kind.ESCAPE)))
        .containsExactly(Requests.setSearch("", ""));
    assertThat(model.searching()).isFalse();
  }

  @Test
  void nAndShiftNFindTheNextAndPreviousMatchFromTheSelection() {
    assertThat(keys.press(Key.ch('n'))).isEmpty();
    assertThat(model.notice()).startsWith("no search");

    keys.press(Key.ch('/'));
    typeText("email");
    keys.press(Key.of(Key.Kind.ENTER));
    keys.press(Key.of(Key.Kind.DOWN));
    assertThat(keys.press(Key.ch('n')))
        .containsExactly(Requests.find(true, FeedMessages.id(1), 1));
    assertThat(keys.press(Key.ch('N')))
        .containsExactly(Requests.find(false, FeedMessages.id(1), 1));

    model.apply(FeedMessages.found(FeedMessages.id(42), 42), NOW_MS);
    model.apply(FeedMessages.window("ready", 42, PAGE, 100), NOW_MS);
    assertThat(model.selectedJob().id()).isEqualTo(FeedMessages.id(42));
  }

  @Test
  void capitalDAsksForConfirmationAndOnlyYDeletes() {
    keys.press(Key.of(Key.Kind.DOWN));
    assertThat(keys.press(Key.ch('D'))).isEmpty();
    assertThat(model.pendingDelete().id()).isEqualTo(FeedMessages.id(1));
    assertThat(keys.press(Key.ch('n'))).isEmpty();
    assertThat(model.pendingDelete()).isNull();
    assertThat(model.notice()).isEqualTo("delete cancelled");

    keys.press(Key.ch('D'));
    assertThat(keys.press(Key.of(Key.Kind.ENTER))).isEmpty(); // the default answer is No
    keys.press(Key.ch('D'));
    assertThat(keys.press(Key.ch('y'))).containsExactly(Requests.delete(FeedMessages.id(1)));
  }

  @Test
  void capitalDWithNothingSelectedSaysSo() {
    keys.press(Key.of(Key.Kind.TAB)); // Scheduled, no window yet
    keys.press(Key.ch('D'));
    assertThat(model.pendingDelete()).isNull();
    assertThat(model.notice()).isEqualTo("no job selected");
  }

  @Test
  void pPausesAndResumesTheLists() {
    assertThat(keys.press(Key.ch('p'))).containsExactly(Requests.pause(true));
    assertThat(model.paused()).isTrue();
    assertThat(keys.press(Key.ch('p'))).containsExactly(Requests.pause(false));
    assertThat(model.paused()).isFalse();
  }

  @Test
  void leftAndRightScrollHorizontallyButNotBeforeTheFirstColumn() {
    keys.press(Key.of(Key.Kind.RIGHT));
    keys.press(Key.of(Key.Kind.RIGHT));
    assertThat(model.horizontalScroll()).isEqualTo(2 * TopKeys.HORIZONTAL_STEP);
    for (int i = 0; i < 3; i++) {
      keys.press(Key.of(Key.Kind.LEFT));
    }
    assertThat(model.horizontalScroll()).isZero();
  }

  @Test
  void iTogglesDetailsAndANewPageSizeResubscribes() {
    keys.press(Key.ch('i'));
    assertThat(model.details()).isTrue();
    assertThat(keys.layout(PAGE)).isEmpty();
    List<ObjectNode> sent = keys.layout(4);
    assertThat(sent).singleElement().satisfies(message -> {
      assertThat(message.get("type").asText()).isEqualTo("subscribe");
      assertThat(message.get("tab").asText()).isEqualTo("ready");
      assertThat(message.get("limit").asInt()).isEqualTo(4);
    });
  }

  @Test
  void qAndCtrlCQuit() {
    keys.press(Key.ch('q'));
    assertThat(model.quitting()).isTrue();
    TopModel other = new TopModel("u", "v", 500);
    new TopKeys(other).press(Key.of(Key.Kind.CTRL_C));
    assertThat(other.quitting()).isTrue();
  }

  private void typeText(String text) {
    for (char c : text.toCharArray()) {
      assertThat(keys.press(Key.ch(c))).isEmpty();
    }
  }
}

package io.sluice.engine.cron;

import static io.sluice.engine.cron.Occurrences.inUtc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every syntax element of API.md §9.3, read back through the occurrences it produces. */
class CronExpressionParsingTest {

  @Nested
  class Fields {
    @Test
    void fiveFieldsFireAtSecondZero() {
      assertThat(inUtc("5 * * * *", "2024-01-01T00:00", 2))
          .containsExactly("2024-01-01T00:05", "2024-01-01T01:05");
    }

    @Test
    void sixFieldsAddALeadingSecond() {
      assertThat(inUtc("30 5 * * * *", "2024-01-01T00:00", 2))
          .containsExactly("2024-01-01T00:05:30", "2024-01-01T01:05:30");
    }

    @Test
    void toleratesSurroundingAndRepeatedWhitespace() {
      assertThat(inUtc("  5 \t*  * * *\n", "2024-01-01T00:00", 1))
          .containsExactly("2024-01-01T00:05");
    }

    @Test
    void keepsTheOriginalTextAsToString() {
      assertThat(CronExpression.parse(" 5  * * * * ").toString()).isEqualTo(" 5  * * * * ");
      assertThat(CronExpression.parse("@daily").toString()).isEqualTo("@daily");
    }

    @Test
    void isEqualOnlyToTheSameText() {
      assertThat(CronExpression.parse("0 * * * *")).isEqualTo(CronExpression.parse("0 * * * *"))
          .hasSameHashCodeAs(CronExpression.parse("0 * * * *"))
          .isNotEqualTo(CronExpression.parse("@hourly"));
    }

    @Test
    void acceptsAnExpressionThatNeverFires() {
      assertThat(CronExpression.parse("0 0 30 2 *").toString()).isEqualTo("0 0 30 2 *");
    }
  }

  @Nested
  class Values {
    @Test
    void starMatchesEveryValue() {
      assertThat(inUtc("* * * * *", "2024-01-01T00:00", 3))
          .containsExactly("2024-01-01T00:01", "2024-01-01T00:02", "2024-01-01T00:03");
    }

    @Test
    void questionMarkMeansStarInAnyField() {
      assertThat(inUtc("0 0 ? ? ?", "2024-01-01T00:00", 2))
          .containsExactly("2024-01-02T00:00", "2024-01-03T00:00");
      assertThat(inUtc("? 0 1 1 *", "2024-01-01T00:00:30", 2))
          .containsExactly("2024-01-01T00:01", "2024-01-01T00:02");
    }

    @Test
    void listsCombineItems() {
      assertThat(inUtc("5,10,50 * * * *", "2024-01-01T00:00", 4)).containsExactly(
          "2024-01-01T00:05", "2024-01-01T00:10", "2024-01-01T00:50", "2024-01-01T01:05");
    }

    @Test
    void rangesIncludeBothEnds() {
      assertThat(inUtc("10-12 * * * *", "2024-01-01T00:00", 4)).containsExactly(
          "2024-01-01T00:10", "2024-01-01T00:11", "2024-01-01T00:12", "2024-01-01T01:10");
    }

    @Test
    void starStepsCountFromTheFieldMinimum() {
      assertThat(inUtc("*/20 * * * *", "2024-01-01T00:00", 3))
          .containsExactly("2024-01-01T00:20", "2024-01-01T00:40", "2024-01-01T01:00");
      assertThat(inUtc("0 0 */10 * *", "2024-01-01T00:00", 4)).containsExactly(
          "2024-01-11T00:00", "2024-01-21T00:00", "2024-01-31T00:00", "2024-02-01T00:00");
    }

    @Test
    void rangeStepsStayInsideTheRange() {
      assertThat(inUtc("10-30/10 * * * *", "2024-01-01T00:00", 4)).containsExactly(
          "2024-01-01T00:10", "2024-01-01T00:20", "2024-01-01T00:30", "2024-01-01T01:10");
    }

    @Test
    void startStepsRunToTheFieldMaximum() {
      assertThat(inUtc("50/4 * * * *", "2024-01-01T00:00", 4)).containsExactly(
          "2024-01-01T00:50", "2024-01-01T00:54", "2024-01-01T00:58", "2024-01-01T01:50");
      assertThat(inUtc("0 0/6 * * *", "2024-01-01T00:00", 4)).containsExactly(
          "2024-01-01T06:00", "2024-01-01T12:00", "2024-01-01T18:00", "2024-01-02T00:00");
    }

    @Test
    void aStepAsWideAsTheFieldKeepsOnlyItsStart() {
      assertThat(inUtc("*/60 * * * *", "2024-01-01T00:00", 2))
          .containsExactly("2024-01-01T01:00", "2024-01-01T02:00");
    }

    @Test
    void monthNamesIgnoreCase() {
      assertThat(inUtc("0 0 1 jan,Jul *", "2024-01-01T00:00", 2))
          .containsExactly("2024-07-01T00:00", "2025-01-01T00:00");
      assertThat(inUtc("0 0 1 MAR-may *", "2024-01-01T00:00", 4)).containsExactly(
          "2024-03-01T00:00", "2024-04-01T00:00", "2024-05-01T00:00", "2025-03-01T00:00");
    }

    @Test
    void weekdayNamesIgnoreCase() {
      // 2024-01-01 is a Monday.
      assertThat(inUtc("0 0 * * mon,Wed", "2024-01-01T00:00", 2))
          .containsExactly("2024-01-03T00:00", "2024-01-08T00:00");
    }

    @Test
    void zeroSevenAndSunAllMeanSunday() {
      for (String sunday : new String[] {"0", "7", "SUN", "sun"}) {
        assertThat(inUtc("0 0 * * " + sunday, "2024-01-01T00:00", 2))
            .as(sunday).containsExactly("2024-01-07T00:00", "2024-01-14T00:00");
      }
    }

    @Test
    void weekdayRangesMayEndOnSunday() {
      for (String weekend : new String[] {"FRI-SUN", "5-7", "FRI-0"}) {
        assertThat(inUtc("0 0 * * " + weekend, "2024-01-01T00:00", 4)).as(weekend).containsExactly(
            "2024-01-05T00:00", "2024-01-06T00:00", "2024-01-07T00:00", "2024-01-12T00:00");
      }
    }

    @Test
    void weekdayStepsCountFromSunday() {
      assertThat(inUtc("0 0 * * */3", "2024-01-01T00:00", 4)).containsExactly(
          "2024-01-03T00:00", "2024-01-06T00:00", "2024-01-07T00:00", "2024-01-10T00:00");
    }
  }

  @Nested
  class Aliases {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "@yearly    | 0 0 1 1 *",
        "@annually  | 0 0 1 1 *",
        "@monthly   | 0 0 1 * *",
        "@weekly    | 0 0 * * 0",
        "@daily     | 0 0 * * *",
        "@midnight  | 0 0 * * *",
        "@hourly    | 0 * * * *",
        "@DAILY     | 0 0 * * *",
    })
    void expandToTheirFiveFieldForm(String alias, String expansion) {
      assertThat(inUtc(alias, "2024-01-01T00:00", 5))
          .isEqualTo(inUtc(expansion, "2024-01-01T00:00", 5));
    }
  }

  @Nested
  class Errors {
    @ParameterizedTest(name = "[{index}] \"{0}\"")
    @CsvSource(delimiter = '|', value = {
        "''                  | expression is empty",
        "'  '                | expression is empty",
        "* * * *             | expected 5 or 6 fields, got 4",
        "* * * * * * *       | expected 5 or 6 fields, got 7",
        "@every              | unknown alias \"@every\"",
        "60 * * * *          | minute field: 60 is out of range 0-59",
        "60 * * * * *        | second field: 60 is out of range 0-59",
        "* 24 * * *          | hour field: 24 is out of range 0-23",
        "* * 0 * *           | day-of-month field: 0 is out of range 1-31",
        "* * 32 * *          | day-of-month field: 32 is out of range 1-31",
        "* * * 0 *           | month field: 0 is out of range 1-12",
        "* * * 13 *          | month field: 13 is out of range 1-12",
        "* * * * 8           | day-of-week field: 8 is out of range 0-7",
        "99999999999 * * * * | minute field: 99999999999 is out of range 0-59",
        "x * * * *           | minute field: invalid value \"x\"",
        "* MON * * *         | hour field: invalid value \"MON\"",
        "* * * FOO *         | month field: invalid value \"FOO\"",
        "* * * L *           | month field: invalid value \"L\"",
        "* * * * MON-FOO     | day-of-week field: invalid value \"FOO\"",
        "1,,2 * * * *        | minute field: invalid item \"\"",
        "1, * * * *          | minute field: invalid item \"\"",
        "5- * * * *          | minute field: invalid item \"5-\"",
        "-5 * * * *          | minute field: invalid item \"-5\"",
        "1-2-3 * * * *       | minute field: invalid item \"1-2-3\"",
        "*/ * * * *          | minute field: invalid item \"*/\"",
        "*/5/2 * * * *       | minute field: invalid item \"*/5/2\"",
        "*/0 * * * *         | minute field: step 0 is out of range 1-60",
        "*/61 * * * *        | minute field: step 61 is out of range 1-60",
        "0 */25 * * *        | hour field: step 25 is out of range 1-24",
        "*/x * * * *         | minute field: invalid step \"x\"",
        "30-10 * * * *       | minute field: range 30-10 starts after it ends",
        "* * * DEC-JAN *     | month field: range DEC-JAN starts after it ends",
        "* * * * 5-1         | day-of-week field: range 5-1 starts after it ends",
        "* * W * *           | day-of-month field: invalid item \"W\"",
        "* * 1-5W * *        | day-of-month field: invalid item \"1-5W\"",
        "* * 32W * *         | day-of-month field: 32 is out of range 1-31",
        "* * 0W * *          | day-of-month field: 0 is out of range 1-31",
        "* 15W * * *         | hour field: invalid value \"15W\"",
        "* * * * L           | day-of-week field: L needs a weekday, e.g. 5L",
        "* * * * 8L          | day-of-week field: 8 is out of range 0-7",
        "* * * * FOOL        | day-of-week field: invalid value \"FOO\"",
        "* * * * MON#6       | day-of-week field: occurrence #6 is out of range 1-5",
        "* * * * MON#0       | day-of-week field: occurrence #0 is out of range 1-5",
        "* * * * #2          | day-of-week field: invalid item \"#2\"",
        "* * * * 5#          | day-of-week field: invalid item \"5#\"",
        "* * * * 1#2#3       | day-of-week field: invalid item \"1#2#3\"",
    })
    void rejectWithAShortDetail(String expression, String detail) {
      assertThatThrownBy(() -> CronExpression.parse(expression))
          .isInstanceOf(InvalidCronExpressionException.class)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(detail);
    }
  }
}

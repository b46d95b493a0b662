package io.sluice.engine.cron;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.IntPredicate;
import java.util.function.Predicate;

/**
 * A random valid cron expression together with a reading of what it matches that is written
 * straight from API.md §9.3, independently of the parser: each field keeps a predicate built
 * alongside its text.
 */
final class RandomCron {
  private static final List<String> MONTHS = List.of(
      "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC");
  private static final List<String> WEEKDAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI",
      "SAT");

  /** How often each field is a bare wildcard; denser expressions fire inside short windows. */
  record Density(double second, double minute, double hour, double day, double month) {}

  private record Field<T>(String text, Predicate<T> matches) {
    boolean isWildcard() {
      return text.equals("*") || text.equals("?");
    }
  }

  final String text;
  private final Field<Integer> second;
  private final Field<Integer> minute;
  private final Field<Integer> hour;
  private final Field<LocalDate> dayOfMonth;
  private final Field<Integer> month;
  private final Field<LocalDate> dayOfWeek;

  private RandomCron(boolean withSeconds, Field<Integer> second, Field<Integer> minute,
      Field<Integer> hour, Field<LocalDate> dayOfMonth, Field<Integer> month,
      Field<LocalDate> dayOfWeek) {
    this.second = second;
    this.minute = minute;
    this.hour = hour;
    this.dayOfMonth = dayOfMonth;
    this.month = month;
    this.dayOfWeek = dayOfWeek;
    this.text = (withSeconds ? second.text + " " : "") + String.join(" ", minute.text, hour.text,
        dayOfMonth.text, month.text, dayOfWeek.text);
  }

  static RandomCron generate(Random random, boolean withSeconds, Density density) {
    Field<Integer> second = withSeconds
        ? plain(random, 0, 59, List.of(), density.second())
        : new Field<>("0", s -> s == 0);
    return new RandomCron(withSeconds, second,
        plain(random, 0, 59, List.of(), density.minute()),
        plain(random, 0, 23, List.of(), density.hour()),
        dayOfMonth(random, density.day()),
        plain(random, 1, 12, MONTHS, density.month()),
        dayOfWeek(random, density.day()));
  }

  boolean matches(LocalDateTime t) {
    LocalDate date = t.toLocalDate();
    boolean days;
    if (!dayOfMonth.isWildcard() && !dayOfWeek.isWildcard()) {
      days = dayOfMonth.matches.test(date) || dayOfWeek.matches.test(date);
    } else {
      days = dayOfMonth.matches.test(date) && dayOfWeek.matches.test(date);
    }
    return days && month.matches.test(t.getMonthValue()) && hour.matches.test(t.getHour())
        && minute.matches.test(t.getMinute()) && second.matches.test(t.getSecond());
  }

  private static Field<Integer> plain(Random random, int min, int max, List<String> names,
      double wildcard) {
    if (random.nextDouble() < wildcard) {
      return new Field<>(random.nextInt(4) == 0 ? "?" : "*", v -> true);
    }
    List<String> texts = new ArrayList<>();
    List<IntPredicate> predicates = new ArrayList<>();
    for (int n = 1 + random.nextInt(3); n > 0; n--) {
      int a = between(random, min, max);
      int b = between(random, a, max);
      int step = 1 + random.nextInt(random.nextBoolean() ? 5 : max - min + 1);
      switch (random.nextInt(5)) {
        case 0 -> {
          texts.add(name(random, a, min, names));
          predicates.add(v -> v == a);
        }
        case 1 -> {
          texts.add(name(random, a, min, names) + "-" + name(random, b, min, names));
          predicates.add(v -> v >= a && v <= b);
        }
        case 2 -> {
          texts.add("*/" + step);
          predicates.add(v -> (v - min) % step == 0);
        }
        case 3 -> {
          texts.add(name(random, a, min, names) + "-" + name(random, b, min, names) + "/" + step);
          predicates.add(v -> v >= a && v <= b && (v - a) % step == 0);
        }
        default -> {
          texts.add(name(random, a, min, names) + "/" + step);
          predicates.add(v -> v >= a && (v - a) % step == 0);
        }
      }
    }
    return new Field<>(String.join(",", texts), v -> predicates.stream().anyMatch(p -> p.test(v)));
  }

  private static Field<LocalDate> dayOfMonth(Random random, double wildcard) {
    Field<Integer> days = plain(random, 1, 31, List.of(), wildcard);
    if (days.isWildcard() || random.nextInt(3) > 0) {
      return new Field<>(days.text, date -> days.matches.test(date.getDayOfMonth()));
    }
    int n = between(random, 1, 31);
    String special = List.of("L", "LW", n + "W").get(random.nextInt(3));
    Predicate<LocalDate> specialMatches = switch (special) {
      case "L" -> date -> date.getDayOfMonth() == date.lengthOfMonth();
      case "LW" -> date -> date.equals(lastWeekday(date));
      default -> date -> n <= date.lengthOfMonth() && date.equals(nearestWeekday(date, n));
    };
    return new Field<>(days.text + "," + special,
        date -> days.matches.test(date.getDayOfMonth()) || specialMatches.test(date));
  }

  private static Field<LocalDate> dayOfWeek(Random random, double wildcard) {
    Field<Integer> weekdays = plain(random, 0, 7, WEEKDAYS.subList(0, 7), wildcard);
    Predicate<LocalDate> plainMatches = date -> {
      int weekday = date.getDayOfWeek().getValue() % 7;
      return weekdays.matches.test(weekday) || (weekday == 0 && weekdays.matches.test(7));
    };
    if (weekdays.isWildcard() || random.nextInt(3) > 0) {
      return new Field<>(weekdays.text, plainMatches);
    }
    int weekday = random.nextInt(8);
    DayOfWeek day = DayOfWeek.of(weekday == 0 ? 7 : weekday);
    String weekdayText = weekday < 7 && random.nextBoolean()
        ? WEEKDAYS.get(weekday) : String.valueOf(weekday);
    if (random.nextBoolean()) {
      return new Field<>(weekdays.text + "," + weekdayText + "L", date -> plainMatches.test(date)
          || (date.getDayOfWeek() == day && date.plusWeeks(1).getMonth() != date.getMonth()));
    }
    int k = between(random, 1, 5);
    return new Field<>(weekdays.text + "," + weekdayText + "#" + k, date -> plainMatches.test(date)
        || (date.getDayOfWeek() == day && date.minusWeeks(k - 1).getMonth() == date.getMonth()
            && date.minusWeeks(k).getMonth() != date.getMonth()));
  }

  private static LocalDate lastWeekday(LocalDate date) {
    LocalDate day = date.withDayOfMonth(date.lengthOfMonth());
    while (day.getDayOfWeek().getValue() > 5) {
      day = day.minusDays(1);
    }
    return day;
  }

  /** The weekday closest to day n of the month, never leaving the month. */
  private static LocalDate nearestWeekday(LocalDate date, int n) {
    LocalDate target = date.withDayOfMonth(n);
    for (int distance = 0; ; distance++) {
      for (LocalDate candidate : List.of(target.minusDays(distance), target.plusDays(distance))) {
        if (candidate.getMonth() == target.getMonth() && candidate.getDayOfWeek().getValue() <= 5) {
          return candidate;
        }
      }
    }
  }

  private static String name(Random random, int value, int min, List<String> names) {
    int index = value - min;
    if (index < names.size() && random.nextInt(3) == 0) {
      String name = names.get(index);
      return random.nextBoolean() ? name : name.toLowerCase(Locale.ROOT);
    }
    return String.valueOf(value);
  }

  private static int between(Random random, int min, int max) {
    return min + random.nextInt(max - min + 1);
  }

  @Override
  public String toString() {
    return text;
  }
}

//! FT.AGGREGATE argument parsing, step semantics and reply shapes.

mod aggregate_support;

use aggregate_support::{bulk, n, s, table, MemSource};
use search::aggregate::reply::{render, Chunk};
use search::aggregate::{AggReply, AggregateRequest, Protocol, Value};

fn row(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

fn err(src: &MemSource, args: &[&str]) -> String {
    match src.run(args) {
        Ok(o) => panic!("expected an error for {args:?}, got {:?}", table(&o)),
        Err(e) => e.message,
    }
}

/// The seeds' example: `LOAD 6 $.user.hp AS hp $.user.dmg AS dmg APPLY '@hp-@dmg' AS points`.
#[test]
fn seed_example_resp2_and_resp3() {
    let mut src = MemSource::new(&[]);
    src.add("myDoc", &[("$.user.hp", s("1000")), ("$.user.dmg", s("150"))]);
    let out = src
        .run(&[
            "LOAD", "6", "$.user.hp", "AS", "hp", "$.user.dmg", "AS", "dmg", "APPLY", "@hp-@dmg", "AS",
            "points",
        ])
        .unwrap();
    let resp2 = render(&Chunk::of(&out, false), Protocol::Resp2);
    assert_eq!(
        resp2,
        AggReply::Array(vec![
            AggReply::Int(1),
            AggReply::Array(vec![
                bulk("hp"),
                bulk("1000"),
                bulk("dmg"),
                bulk("150"),
                bulk("points"),
                bulk("850")
            ]),
        ])
    );
    let resp3 = render(&Chunk::of(&out, false), Protocol::Resp3);
    let simple = |x: &str| AggReply::Simple(x.to_string());
    assert_eq!(
        resp3,
        AggReply::Map(vec![
            // The real RediSearch 2.10 sends total_results second (the seed lists the keys
            // alphabetically, as a client printed its map).
            (simple("attributes"), AggReply::Array(vec![])),
            (simple("total_results"), AggReply::Int(1)),
            (simple("format"), simple("STRING")),
            (
                simple("results"),
                AggReply::Array(vec![AggReply::Map(vec![
                    (
                        simple("extra_attributes"),
                        AggReply::Map(vec![
                            (bulk("hp"), bulk("1000")),
                            (bulk("dmg"), bulk("150")),
                            (bulk("points"), bulk("850")),
                        ])
                    ),
                    (simple("values"), AggReply::Array(vec![])),
                ])])
            ),
            (simple("warning"), AggReply::Array(vec![])),
        ])
    );
    // FORMAT EXPAND types the numbers.
    let typed = render(&Chunk::of(&out, true), Protocol::Resp2);
    let AggReply::Array(items) = typed else { panic!() };
    assert_eq!(
        items[1],
        AggReply::Array(vec![
            bulk("hp"),
            bulk("1000"),
            bulk("dmg"),
            bulk("150"),
            bulk("points"),
            AggReply::Int(850)
        ])
    );
}

fn shop() -> MemSource {
    let mut src = MemSource::new(&[("brand", true), ("price", true), ("title", false), ("tags", false)]);
    src.add(
        "p1",
        &[
            ("brand", s("acme")),
            ("price", n(10.0)),
            ("title", s("Anvil")),
            ("tags", Value::array(vec![s("tool"), s("heavy")])),
        ],
    );
    src.add(
        "p2",
        &[
            ("brand", s("acme")),
            ("price", n(30.0)),
            ("title", s("Rocket")),
            ("tags", Value::array(vec![s("fast")])),
        ],
    );
    src.add(
        "p3",
        &[
            ("brand", s("zeta")),
            ("price", n(20.0)),
            ("title", s("Magnet")),
            ("tags", Value::array(vec![s("tool")])),
        ],
    );
    src.add("p4", &[("brand", s("zeta")), ("title", s("Spring"))]);
    src
}

#[test]
fn apply_reads_sortable_fields_and_rejects_unloaded_ones() {
    let src = shop();
    let out = src.run(&["APPLY", "@price * 2", "AS", "double", "LIMIT", "0", "1"]).unwrap();
    assert_eq!(table(&out), vec![row(&[("price", "10"), ("double", "20")])]);
    assert_eq!(
        err(&src, &["APPLY", "upper(@title)", "AS", "t"]),
        "Property `title` not loaded nor in pipeline"
    );
    assert_eq!(err(&src, &["FILTER", "@nope > 1"]), "Property `nope` not loaded nor in pipeline");
    let out =
        src.run(&["LOAD", "1", "@title", "APPLY", "upper(@title)", "AS", "t", "LIMIT", "0", "1"]).unwrap();
    assert_eq!(table(&out), vec![row(&[("title", "Anvil"), ("t", "ANVIL")])]);
}

#[test]
fn apply_without_as_uses_the_expression_text() {
    let src = shop();
    let out = src.run(&["APPLY", "@price+1", "LIMIT", "0", "1"]).unwrap();
    assert_eq!(out.names, vec!["price".to_string(), "@price+1".to_string()]);
}

#[test]
fn evaluation_errors_fail_or_warn() {
    let src = shop();
    // p4 has no price: it is the 4th row, so the first rows come back with a warning.
    let out = src.run(&["APPLY", "@price + 1", "AS", "p"]).unwrap();
    assert_eq!(out.rows.len(), 3);
    assert_eq!(out.warning.as_deref(), Some("price: has no value, consider using EXISTS if applicable"));
    // Before any row: an error.
    assert_eq!(
        err(&src, &["FILTER", "@price > 100", "APPLY", "@price + 1", "AS", "p"]),
        "price: has no value, consider using EXISTS if applicable"
    );
    // A blocking step after the failing step turns it into an error.
    assert_eq!(
        err(&src, &["APPLY", "@price + 1", "AS", "p", "SORTBY", "2", "@p", "DESC"]),
        "price: has no value, consider using EXISTS if applicable"
    );
    // A step that reads the missing value only where exists() says it is there fails on no row.
    let out = src
        .run(&["APPLY", "case(exists(@price), @price, -1)", "AS", "p", "SORTBY", "2", "@p", "ASC"])
        .unwrap();
    assert_eq!(out.rows.len(), 4);
}

#[test]
fn filter_keeps_truthy_rows_and_total_counts_matches() {
    let src = shop();
    let out = src.run(&["FILTER", "@brand == 'acme'"]).unwrap();
    assert_eq!(out.rows.len(), 2);
    // RediSearch's total counts the documents read until the first row passed (the first
    // document is acme's: RediSearch 2.10.5 reports 1 for such a pipeline), of 4 matched.
    assert_eq!((out.total, out.matched), (1, 4));
}

#[test]
fn groupby_reducers_and_default_aliases() {
    let src = shop();
    let out = src
        .run(&[
            "GROUPBY", "1", "@brand", "REDUCE", "COUNT", "0", "REDUCE", "SUM", "1", "@price", "AS", "total",
            "REDUCE", "MAX", "1", "@price", "SORTBY", "2", "@brand", "ASC",
        ])
        .unwrap();
    assert_eq!(out.total, 2);
    assert_eq!(
        table(&out),
        vec![
            row(&[
                ("brand", "acme"),
                ("__generated_aliascount", "2"),
                ("total", "40"),
                ("__generated_aliasmaxprice", "30")
            ]),
            row(&[
                ("brand", "zeta"),
                ("__generated_aliascount", "2"),
                ("total", "20"),
                ("__generated_aliasmaxprice", "20")
            ]),
        ]
    );
}

#[test]
fn groupby_splits_multi_valued_fields() {
    let src = shop();
    let out = src
        .run(&["GROUPBY", "1", "@tags", "REDUCE", "COUNT", "0", "AS", "n", "SORTBY", "2", "@tags", "ASC"])
        .unwrap();
    // p4 has no tags: a NULL group, which sorts before strings (the group
    // row holds an explicit NULL, unlike a missing value).
    assert_eq!(
        table(&out),
        vec![
            row(&[("tags", "nil"), ("n", "1")]),
            row(&[("tags", "fast"), ("n", "1")]),
            row(&[("tags", "heavy"), ("n", "1")]),
            row(&[("tags", "tool"), ("n", "2")]),
        ]
    );
}

#[test]
fn groupby_zero_keys_is_one_group() {
    let src = shop();
    let out = src.run(&["GROUPBY", "0", "REDUCE", "COUNT", "0", "AS", "n"]).unwrap();
    assert_eq!(table(&out), vec![row(&[("n", "4")])]);
}

#[test]
fn steps_after_groupby_see_only_group_properties() {
    let src = shop();
    assert_eq!(
        err(&src, &["GROUPBY", "1", "@brand", "APPLY", "@price", "AS", "x"]),
        "Property `price` not loaded nor in pipeline"
    );
    assert_eq!(
        err(&src, &["GROUPBY", "1", "@brand", "LOAD", "1", "@title"]),
        "LOAD cannot be applied after projectors or reducers"
    );
    let out = src
        .run(&[
            "GROUPBY", "1", "@brand", "REDUCE", "SUM", "1", "@price", "AS", "s", "APPLY", "@s * 2", "AS",
            "d", "FILTER", "@d > 50",
        ])
        .unwrap();
    assert_eq!(table(&out), vec![row(&[("brand", "acme"), ("s", "40"), ("d", "80")])]);
    // A second GROUPBY over the first one's output.
    let out = src
        .run(&[
            "GROUPBY", "1", "@brand", "REDUCE", "COUNT", "0", "AS", "c", "GROUPBY", "1", "@c", "REDUCE",
            "COUNT", "0", "AS", "brands",
        ])
        .unwrap();
    assert_eq!(table(&out), vec![row(&[("c", "2"), ("brands", "2")])]);
}

#[test]
fn sortby_limits_and_order() {
    let mut src = MemSource::new(&[("v", true)]);
    for i in 0..25 {
        src.add(&format!("d{i}"), &[("v", n(((i * 7) % 25) as f64))]);
    }
    src.add("novalue", &[]);
    let vals = |args: &[&str]| -> Vec<String> {
        table(&src.run(args).unwrap())
            .into_iter()
            .map(|r| r.first().map_or("-".into(), |x| x.1.clone()))
            .collect()
    };
    // Default SORTBY limit is 10 rows.
    assert_eq!(vals(&["SORTBY", "1", "@v"]), (0..10).map(|i| i.to_string()).collect::<Vec<_>>());
    assert_eq!(vals(&["SORTBY", "2", "@v", "DESC", "MAX", "3"]), vec!["24", "23", "22"]);
    assert_eq!(
        vals(&["SORTBY", "2", "@v", "ASC", "LIMIT", "20", "10"]),
        vec!["20", "21", "22", "23", "24", "-"]
    );
    // Missing values sort last in both directions.
    assert_eq!(vals(&["SORTBY", "2", "@v", "DESC", "LIMIT", "24", "5"]), vec!["0", "-"]);
    assert_eq!(vals(&["LIMIT", "3", "2"]).len(), 2);
}

#[test]
fn sortby_text_and_multiple_keys() {
    let src = shop();
    let out = src.run(&["SORTBY", "4", "@brand", "DESC", "@price", "ASC"]).unwrap();
    let prices: Vec<String> = table(&out)
        .iter()
        .map(|r| r.iter().find(|x| x.0 == "price").map_or("-".into(), |x| x.1.clone()))
        .collect();
    assert_eq!(prices, vec!["20", "-", "10", "30"]);
}

#[test]
fn limit_stops_loading_early() {
    let mut src = MemSource::new(&[]);
    for i in 0..1000 {
        src.add(&format!("d{i}"), &[("x", n(i as f64))]);
    }
    let out = src.run(&["LOAD", "1", "@x", "LIMIT", "0", "3"]).unwrap();
    assert_eq!(out.rows.len(), 3);
    assert_eq!(src.loads.get(), 3);
}

#[test]
fn count_only_load_all_key_and_scores() {
    let src = shop();
    let out = src.run(&["LIMIT", "0", "0"]).unwrap();
    assert!(out.rows.is_empty() && out.count_only);
    assert_eq!(render(&Chunk::of(&out, false), Protocol::Resp2), AggReply::Array(vec![AggReply::Int(4)]));

    let out = src.run(&["LOAD", "*", "APPLY", "upper(@title)", "AS", "T", "LIMIT", "3", "1"]).unwrap();
    // Keys named by later steps exist before LOAD * adds the others.
    assert_eq!(table(&out), vec![row(&[("title", "Spring"), ("T", "SPRING"), ("brand", "zeta")])]);

    let out = src.run(&["ADDSCORES", "LOAD", "3", "@__key", "AS", "k", "LIMIT", "0", "2"]).unwrap();
    assert_eq!(
        table(&out),
        vec![row(&[("__score", "1"), ("k", "p1")]), row(&[("__score", "2"), ("k", "p2")])]
    );
}

#[test]
fn no_steps_gives_empty_rows() {
    let src = shop();
    let out = src.run(&[]).unwrap();
    // RediSearch 2.10.5 reports 1 for `FT.AGGREGATE idx *`: one document read for the first row.
    assert_eq!((out.total, out.matched), (1, 4));
    assert_eq!(table(&out), vec![Vec::<(String, String)>::new(); 4]);
}

#[test]
fn argument_errors() {
    let src = shop();
    let cases: &[(&[&str], &str)] = &[
        (&["BOGUS"], "Unknown argument `BOGUS` at position 1 for <main>"),
        (&["GROUPBY", "1", "@brand", "VERBATIM"], "Unknown argument `VERBATIM` at position 4 for <main>"),
        (
            &["GROUPBY", "1", "brand"],
            "Bad arguments for GROUPBY: Unknown property `brand`. Did you mean `@brand`?",
        ),
        (&["GROUPBY", "x"], "Bad arguments for GROUPBY: Could not convert argument to expected type"),
        (&["GROUPBY", "3", "@a"], "Bad arguments for GROUPBY: Value is outside acceptable bounds"),
        (&["GROUPBY", "1", "@brand", "REDUCE", "NOPE", "0"], "No such reducer: NOPE"),
        (&["GROUPBY", "1", "@brand", "REDUCE", "COUNT", "1", "@x"], "Count accepts 0 values only"),
        (&["GROUPBY", "1", "@brand", "REDUCE", "SUM", "0"], "Missing arguments for SUM"),
        (
            &["GROUPBY", "1", "@brand", "REDUCE", "SUM", "1", "@nope"],
            "Property `nope` not present in document or pipeline",
        ),
        (&["GROUPBY", "1", "@nope"], "No such property `nope`"),
        (
            &["GROUPBY", "1", "@brand", "REDUCE", "QUANTILE", "2", "@price", "2"],
            "Percentage must be between 0.0 and 1.0",
        ),
        (
            &["GROUPBY", "1", "@brand", "REDUCE", "QUANTILE", "1", "@price"],
            "Bad arguments for QUANTILE: Expected an argument, but none provided",
        ),
        (
            &["GROUPBY", "1", "@brand", "REDUCE", "RANDOM_SAMPLE", "2", "@price", "x"],
            "Bad arguments for <sample size>: Could not convert argument to expected type",
        ),
        (
            &["GROUPBY", "1", "@brand", "REDUCE", "FIRST_VALUE", "3", "@price", "ZZ", "1"],
            "Unknown argument `ZZ` at position 1 for FIRST_VALUE",
        ),
        (
            &["GROUPBY", "1", "@brand", "REDUCE", "COUNT", "0", "AS"],
            "Bad arguments for AS: Expected an argument, but none provided",
        ),
        (&["GROUPBY", "2", "@brand", "@brand"], "Property `brand` specified more than once"),
        (&["SORTBY", "2", "@price", "UP"], "MISSING ASC or DESC after sort field (UP)"),
        (
            &["SORTBY", "1", "@price", "SORTBY", "1", "@brand"],
            "Multiple SORTBY steps are not allowed. Sort multiple fields in a single step",
        ),
        (&["SORTBY", "1", "@nope"], "Property `nope` not loaded nor in schema"),
        (
            &["SORTBY", "1", "@price", "MAX", "x"],
            "Bad arguments for MAX: Could not convert argument to expected type",
        ),
        (&["LIMIT", "1"], "LIMIT requires two arguments"),
        (&["LIMIT", "a", "b"], "LIMIT needs two numeric arguments"),
        (&["LIMIT", "0", "3000000000"], "LIMIT exceeds maximum of 2147483648"),
        (&["LIMIT", "2000000", "1"], "OFFSET exceeds maximum of 1000000"),
        (&["APPLY"], "Bad arguments for APPLY/FILTER: Expected an argument, but none provided"),
        (&["APPLY", "1", "AS"], "AS needs argument"),
        (&["APPLY", "foo(1)", "AS", "x"], "Unknown function name 'foo'"),
        (&["LOAD", "x"], "Bad arguments for LOAD: Could not convert argument to expected type"),
        (&["LOAD", "2", "@a", "AS"], "LOAD path AS name - must be accompanied with NAME"),
        (&["LOAD", "3", "@a", "AS", "as"], "Alias for LOAD cannot be `AS`"),
        (&["TIMEOUT"], "Need argument for TIMEOUT"),
        (&["TIMEOUT", "-1"], "TIMEOUT requires a non negative integer"),
        (&["DIALECT", "5"], "DIALECT requires a non negative integer >=1 and <= 4"),
        (&["WITHCURSOR", "COUNT", "0"], "Bad arguments for COUNT: Value is outside acceptable bounds"),
        (&["FORMAT", "XML"], "FORMAT XML is not supported"),
        (&["SUMMARIZE"], "SUMMARIZE is not supported on FT.AGGREGATE"),
        (&["PARAMS", "1", "a"], "Parameters must be specified in PARAM VALUE pairs"),
    ];
    for (args, want) in cases {
        assert_eq!(err(&src, args), *want, "args {args:?}");
    }
}

#[test]
fn request_options_are_parsed() {
    let req = AggregateRequest::parse(&[
        "VERBATIM", "SCORER", "BM25", "INKEYS", "2", "a", "b", "TIMEOUT", "5", "PARAMS", "2", "p", "v",
        "DIALECT", "2", "WITHCURSOR", "MAXIDLE", "10", "COUNT", "7", "LOAD", "1", "@x", "SORTBY", "1", "@x",
        "MAX", "5", "LIMIT", "1", "2",
    ])
    .unwrap();
    assert!(req.query_options.verbatim);
    assert_eq!(req.query_options.scorer.as_deref(), Some("BM25"));
    assert_eq!(req.query_options.in_keys, vec![b"a".to_vec(), b"b".to_vec()]);
    assert_eq!(req.timeout_ms, Some(5));
    assert_eq!(req.params, vec![("p".to_string(), "v".to_string())]);
    assert_eq!(req.dialect, Some(2));
    let c = req.cursor.unwrap();
    assert_eq!((c.count, c.max_idle_ms), (Some(7), Some(10)));
    assert_eq!(req.steps.len(), 2);
    // SORTBY ... MAX then LIMIT share one arrange step; LIMIT wins.
    let search::aggregate::request::Step::Arrange(a) = &req.steps[1] else { panic!() };
    assert_eq!((a.offset, a.limit, a.limited), (1, 2, true));
}

/// 2,000 documents `d<i>` with `x` = i, and the plan grouping them by `x` under `timeout`.
fn grouped_under(timeout: search::timeout::Timeout) -> (MemSource, search::aggregate::Plan) {
    let mut src = MemSource::new(&[("x", true)]);
    for i in 0..2000 {
        src.add(&format!("d{i}"), &[("x", n(i as f64))]);
    }
    let req = AggregateRequest::parse(&["GROUPBY", "1", "@x"]).unwrap();
    let plan = search::aggregate::Plan::new(&req, &src, 1).unwrap().with_timeout(timeout);
    (src, plan)
}

/// A timeout of 1 ms that ran out 10 ms ago.
fn ran_out(policy: search::config::TimeoutPolicy) -> search::timeout::Timeout {
    let long_ago = std::time::Instant::now() - std::time::Duration::from_millis(10);
    search::timeout::Timeout::new(long_ago, 1, policy)
}

#[test]
fn deadline_fails_the_query_under_fail() {
    use search::config::TimeoutPolicy;
    let (src, plan) = grouped_under(ran_out(TimeoutPolicy::Fail));
    let e = plan.execute(src.hits().into_iter(), 2000, &src).unwrap_err();
    assert_eq!(e.message, "Timeout limit was reached");
    let far = search::timeout::Timeout::new(std::time::Instant::now(), 3_600_000, TimeoutPolicy::Fail);
    let (src, plan) = grouped_under(far);
    assert_eq!(plan.execute(src.hits().into_iter(), 2000, &src).unwrap().rows.len(), 2000);
}

/// Under RETURN the rows read before the deadline go on through the blocking step (here a
/// GROUPBY: the groups of the first rows), with the timeout warning.
#[test]
fn deadline_cuts_the_rows_short_under_return() {
    let (src, plan) = grouped_under(ran_out(search::config::TimeoutPolicy::Return));
    let out = plan.execute(src.hits().into_iter(), 2000, &src).unwrap();
    // The clock is read every 256 rows: 255 rows pass before the first look.
    assert_eq!(out.rows.len(), 255);
    assert_eq!(out.warning.as_deref(), Some("Timeout limit was reached"));
}

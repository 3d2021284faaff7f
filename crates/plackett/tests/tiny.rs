use plackett::data::{DatasetBuilder, Items, Tail, TieSemantics};
use plackett::infer::{Algorithm, PointOptions, fit_point};

fn ds(n: usize, rankings: &[&[u32]]) -> plackett::data::Dataset {
    let mut b = DatasetBuilder::new(Items::numbered(n), TieSemantics::UnknownOrder);
    for r in rankings {
        let g: Vec<Vec<u32>> = r.iter().map(|&i| vec![i]).collect();
        b.push(&g, Tail::None, &[], 1.0).unwrap();
    }
    b.finish()
}

#[test]
fn tiny_rankings() {
    let d = ds(4, &[&[0, 1, 2], &[3, 2, 0], &[1, 3]]);
    for alg in [Algorithm::Newton, Algorithm::Mm, Algorithm::Ilsr] {
        let f = fit_point(&d, &PointOptions { algorithm: alg, ..Default::default() }).unwrap();
        let lw: Vec<f64> = f.summary.items.iter().map(|i| i.log_worth).collect();
        let want = [-0.443308, 0.695068, -0.670610, 0.418850];
        for (a, b) in lw.iter().zip(want) {
            assert!((a - b).abs() < 1e-5, "{alg:?} {lw:?}");
        }
    }
}

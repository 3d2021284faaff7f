"""Simulate the shipped tricot-style trial `data/tricot-sim/` (Python 3,
standard library only): 600 farmers each rank three of eight varieties
twice (two trials), with a known tree —

    night_temp <= 18            -> worths W_COOL
    night_temp >  18, region in {north, east} -> W_WARM_NE
    night_temp >  18, region in {south, west} -> W_WARM_SW

— and two covariates that do not matter (gender, soil_ph). Plackett–Luce
rankings are drawn by Luce's choice axiom (pick the next item with
probability proportional to its worth). Run from the repository root:
python3 bench/make_tricot.py (rewrites the two CSV files byte for byte).
"""
import math
import random

VARIETIES = ["Amani", "Baraka", "Chapa", "Dodo", "Ember", "Fahari", "Giza", "Haba"]
W_COOL = [1.0, 0.5, 0.0, 0.2, -0.5, 0.3, -0.2, 0.1]
W_WARM_NE = [-0.6, 0.4, 0.9, 0.0, 0.6, -0.3, 0.2, -0.1]
W_WARM_SW = [0.2, -0.7, 0.3, 0.8, 0.0, -0.2, 0.5, -0.4]
REGIONS = ["north", "south", "east", "west"]


def pl_draw(rng, items, logw):
    left = list(items)
    out = []
    while left:
        ws = [math.exp(logw[i]) for i in left]
        u = rng.random() * sum(ws)
        for k, w in enumerate(ws):
            u -= w
            if u <= 0 or k == len(ws) - 1:
                out.append(left.pop(k))
                break
    return out


def main():
    rng = random.Random(20261207)
    rankings = ["farmer,trial,variety,rank"]
    covariates = ["farmer,night_temp,region,gender,soil_ph"]
    for f in range(1, 601):
        temp = round(rng.uniform(14.0, 22.0), 2)
        region = rng.choice(REGIONS)
        gender = rng.choice(["female", "male"])
        ph = round(rng.uniform(5.0, 8.0), 2)
        covariates.append(f"F{f:03d},{temp},{region},{gender},{ph}")
        if temp <= 18:
            logw = W_COOL
        elif region in ("north", "east"):
            logw = W_WARM_NE
        else:
            logw = W_WARM_SW
        for trial in (1, 2):
            items = rng.sample(range(len(VARIETIES)), 3)
            for rank, i in enumerate(pl_draw(rng, items, logw), start=1):
                rankings.append(f"F{f:03d},F{f:03d}-{trial},{VARIETIES[i]},{rank}")
    with open("data/tricot-sim/rankings.csv", "w") as fh:
        fh.write("\n".join(rankings) + "\n")
    with open("data/tricot-sim/covariates.csv", "w") as fh:
        fh.write("\n".join(covariates) + "\n")


if __name__ == "__main__":
    main()

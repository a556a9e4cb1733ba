"""`make sim`: run the product on the simulated table.

Until the table simulator lands this is a short demonstration of the firmware's hand
evaluator on sample deals, and it says so.
"""

import random

from firmware.poker import cards, hands


def main():
    print("Table simulator not built yet: showing the hand evaluator on sample deals.\n")
    rng = random.Random(7)
    deck = list(range(cards.DECK_SIZE))
    for _ in range(5):
        rng.shuffle(deck)
        hole, dealer, board = deck[0:2], deck[2:4], deck[4:9]
        player = hands.hole2_board3(hole, board)
        banker = hands.hole2_board3(dealer, board)
        verdict = "player wins" if player > banker else "dealer wins" if banker > player else "tie"
        print("board %s | player %s: %-15s | dealer %s: %-15s | %s" % (
            cards.names(board), cards.names(hole), hands.name(player),
            cards.names(dealer), hands.name(banker), verdict))


if __name__ == "__main__":
    main()

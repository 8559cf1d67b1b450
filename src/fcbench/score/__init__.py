"""fcbench.score"""
